package evaluate

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvaluateSplit(t *testing.T) {
	gold := []Gold{
		{ID: "d1", Question: "who", Answer: "Ada Lovelace", Token: 10},
		{ID: "d1", Question: "where", Answer: "Lisbon", Token: 600},
		{ID: "d2", Question: "who", Answer: "Alan Turing", Token: 511},
		{ID: "d2", Question: "where", Answer: "Osaka", Token: 512},
	}
	answers := map[Key]string{
		{"d1", "who"}:   "Ada Lovelace",
		{"d1", "where"}: "Nairobi",
		{"d2", "who"}:   "Turing",
		{"d3", "who"}:   "ignored: not in the gold file",
	}
	r := Evaluate(gold, answers, 512)
	check := func(name string, s Score, n int, em, f1 float64, missing int) {
		t.Helper()
		if s.N != n || math.Abs(s.EM-em) > 1e-9 || math.Abs(s.F1-f1) > 1e-9 || s.Missing != missing {
			t.Errorf("%s: %+v, want N %d EM %.4f F1 %.4f missing %d", name, s, n, em, f1, missing)
		}
	}
	check("overall", r.Overall, 4, 25, 100*(1+2.0/3)/4, 1)
	check("within", r.Within, 2, 50, 100*(1+2.0/3)/2, 0)
	check("beyond", r.Beyond, 2, 0, 0, 1)

	var b strings.Builder
	if err := WriteTable(&b, []Row{{"qa-shard", r}, {"naive", Evaluate(gold, nil, 512)}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"4 questions: 2 with the answer starting within the first 512 tokens of its document, 2 beyond", "within 512", "beyond 512", "qa-shard", " 41.7", "missing"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 || !strings.HasSuffix(strings.TrimSpace(lines[4]), "4") {
		t.Errorf("want a summary, a header of two lines and two rows, the naive one with 4 missing:\n%s", out)
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gold := write("gold.jsonl", `{"id":"doc-1","question":"q","kind":"founder","answer":"Ada","start":3,"end":6,"token":1}`+"\n")
	g, err := ReadGold(gold)
	if err != nil || len(g) != 1 || g[0] != (Gold{ID: "doc-1", Question: "q", Answer: "Ada", Token: 1}) {
		t.Fatalf("ReadGold: %+v, %v", g, err)
	}
	answers := write("answers.jsonl", `{"id":"doc-1","question":"q","answer":"Ada","score":0.9}
{"id":7,"question":"q","answer":"Bo"}

{"id":8,"line":3,"error":"bad line","question":"q"}
`)
	a, err := ReadAnswers(answers)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Key]string{{"doc-1", "q"}: "Ada", {"7", "q"}: "Bo", {"8", "q"}: ""}
	if len(a) != len(want) {
		t.Fatalf("got %v", a)
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("%v: %q, want %q", k, a[k], v)
		}
	}
	for name, text := range map[string]string{
		"dup.jsonl":     `{"id":"a","question":"q","answer":"x"}` + "\n" + `{"id":"a","question":"q","answer":"y"}`,
		"broken.jsonl":  `{"id":`,
		"empty.jsonl":   "",
		"noid.jsonl":    `{"question":"q","answer":"x"}`,
		"missing.jsonl": "",
	} {
		p := write(name, text)
		if name == "missing.jsonl" {
			p = filepath.Join(dir, "nothing-here.jsonl")
		}
		_, errA := ReadAnswers(p)
		_, errG := ReadGold(p)
		if name == "dup.jsonl" || name == "broken.jsonl" || name == "missing.jsonl" {
			if !errors.Is(errA, ErrInput) {
				t.Errorf("ReadAnswers(%s): %v, want ErrInput", name, errA)
			}
		}
		if !errors.Is(errG, ErrInput) && name != "dup.jsonl" {
			t.Errorf("ReadGold(%s): %v, want ErrInput", name, errG)
		}
	}
}
