package evaluate

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvaluateSplit(t *testing.T) {
	gold := GoldSet{Kind: "gencorpus gold", Questions: []Gold{
		{ID: "d1", Question: "who", Answers: []string{"Ada Lovelace"}, Token: 10},
		{ID: "d1", Question: "where", Answers: []string{"Lisbon"}, Token: 600},
		{ID: "d2", Question: "who", Answers: []string{"Alan Turing"}, Token: 511},
		{ID: "d2", Question: "where", Answers: []string{"Osaka"}, Token: 512},
	}}
	answers := map[Key]Prediction{
		{"d1", "who"}:   {Answer: "Ada Lovelace"},
		{"d1", "where"}: {Answer: "Nairobi"},
		{"d2", "who"}:   {Answer: "Turing"},
		{"d3", "who"}:   {Answer: "ignored: not in the gold file"},
	}
	r, err := Evaluate(gold, answers, 512)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, s Score, n int, em, f1 float64, missing int) {
		t.Helper()
		if s.N != n || math.Abs(s.EM-em) > 1e-9 || math.Abs(s.F1-f1) > 1e-9 || s.Missing != missing {
			t.Errorf("%s: %+v, want N %d EM %.4f F1 %.4f missing %d", name, s, n, em, f1, missing)
		}
	}
	check("overall", r.Overall, 4, 25, 100*(1+2.0/3)/4, 1)
	check("within", r.Within, 2, 50, 100*(1+2.0/3)/2, 0)
	check("beyond", r.Beyond, 2, 0, 0, 1)

	check("HasAns (every question)", r.HasAns, 4, 25, 100*(1+2.0/3)/4, 1)
	if r.Unscored != 1 {
		t.Errorf("%d answer records unscored, want 1 (d3's)", r.Unscored)
	}
	if r.NoAns.N != 0 || r.Best != nil || !r.Positions {
		t.Errorf("no question without an answer: NoAns %+v, best %+v; positions %v", r.NoAns, r.Best, r.Positions)
	}

	naive, err := Evaluate(gold, nil, 512)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, gold, []Row{{"qa-shard", r}, {"naive", naive}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"4 questions: 2 with the answer starting within the first 512 tokens of its document, 2 beyond", "within 512", "beyond 512", "qa-shard", " 41.7", "missing",
		"qa-shard: 1 answer record for questions the gold does not hold, not scored"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 6 || !strings.HasSuffix(strings.TrimSpace(lines[4]), "4") {
		t.Errorf("want a summary, a header of two lines, two rows (the naive one with 4 missing) and the unscored line:\n%s", out)
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
	if err != nil || len(g.Questions) != 1 || g.ByQuestion || !g.Positions() || fmt.Sprint(g.Questions[0]) != fmt.Sprint(Gold{ID: "doc-1", Question: "q", Answers: []string{"Ada"}, Token: 1}) {
		t.Fatalf("ReadGold: %+v, %v", g, err)
	}
	answers := write("answers.jsonl", `{"id":"doc-1","question":"q","answer":"Ada","score":0.9}
{"id":7,"question":"q","answer":"Bo"}

{"id":8,"line":3,"error":"bad line","question":"q"}
{"id":"s","question":"q","question_id":"56be","answer":"x","span_logit":2.5,"null_logit":-1}
`)
	a, err := ReadAnswers(answers)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Key]Prediction{{"doc-1", "q"}: {Answer: "Ada", Score: 0.9}, {"7", "q"}: {Answer: "Bo"}, {"8", "q"}: {Error: true},
		{"s", "q"}: {Answer: "x", QuestionID: "56be", SpanLogit: 2.5, NullLogit: -1, Logits: true}}
	if len(a) != len(want) {
		t.Fatalf("got %v", a)
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("%v: %+v, want %+v", k, a[k], v)
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

// TestFilesRefusesWhatIsNoAnswers: scoring a file that holds no answer
// records (the corpus, a journal, an empty file) is refused, naming it,
// rather than scored 0; error records are counted and said.
func TestFilesRefusesWhatIsNoAnswers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gold := write("gold.jsonl", `{"id":"a","question":"q","answer":"Ada","token":1}`+"\n"+`{"id":"b","question":"q","answer":"Bo","token":1}`+"\n")
	for name, text := range map[string]string{
		"corpus.jsonl":          `{"id":"a","context":"Ada founded it.","question":"q"}` + "\n",
		"answers.jsonl.journal": `{"version":3,"done":2,"complete":true}` + "\n",
		"empty.jsonl":           "",
	} {
		_, _, err := Files(gold, []string{write(name, text)}, 512)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), name) {
			t.Errorf("Files(%s): %v, want ErrInput naming it", name, err)
		}
	}
	answers := write("answers.jsonl", `{"id":"a","question":"q","answer":"Ada"}`+"\n"+`{"id":"b","question":"q","error":"window 1: model failed"}`+"\n")
	g, rows, err := Files(gold, []string{answers}, 512)
	if err != nil || rows[0].Report.Errors != 1 || rows[0].Report.Overall.EM != 50 {
		t.Fatalf("Files: %+v, %v; want 1 error record, EM 50", rows, err)
	}
	var out strings.Builder
	if err := WriteTable(&out, g, rows); err != nil || !strings.Contains(out.String(), "1 of the 2 questions have an error record") {
		t.Errorf("the table does not say so:\n%s", out.String())
	}
}
