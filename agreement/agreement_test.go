package agreement

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/errkind"
	"qa-shard/internal/record"
)

// fakeRun answers every question of a sample with the document's first
// word (float32) and, for the int8 model, with the first two words for the
// documents in differ: a known disagreement.
func fakeRun(t *testing.T, differ map[string]bool, runs *[]string) Runner {
	return func(model, input, output string) error {
		*runs = append(*runs, model)
		f, err := os.Open(input)
		if err != nil {
			return err
		}
		defer f.Close()
		var out strings.Builder
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var d struct {
				ID        string
				Context   string
				Questions []string
			}
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				return err
			}
			words := strings.Fields(d.Context)
			answer, score := words[0], 0.5
			if model == "copy" && differ[d.ID] {
				answer, score = words[0]+" "+words[1], 0.25
			}
			for _, q := range d.Questions {
				line, _ := json.Marshal(map[string]any{"id": d.ID, "question": q, "answer": answer, "score": score, "start": 0, "end": len(answer)})
				out.Write(append(line, '\n'))
			}
		}
		return os.WriteFile(output, []byte(out.String()), 0o644)
	}
}

// TestCheck: the sample is the first N good documents with the global
// questions before their own (bad records passed over and counted); both
// models answer it; F1 of int8 against float32 decides, at the threshold
// itself a pass, just above it a Records failure (exit 3) that says why.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "docs.jsonl")
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf(`{"id": "d%d", "context": "Alpha%d beta gamma", "question": "own %d?"}`, i, i, i))
		if i == 2 {
			lines = append(lines, `{"id": "bad", "context": ""}`)
		}
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// d1 and d3 differ: 2 documents x 2 questions of 20 pairs, each F1 2/3
	// (one word against two: P 1/2, R 1) and EM 0.
	differ := map[string]bool{"d1": true, "d3": true}
	f1 := 100 * (16 + 4*2.0/3) / 20
	o := Options{Inputs: []string{in}, Docs: 10, Questions: []string{"global?"}, Dir: t.TempDir()}
	for _, c := range []struct {
		min  float64
		pass bool
	}{{f1, true}, {f1 + 0.01, false}, {0, false}} { // 0: the default, 99
		o.MinF1 = c.min
		var runs []string
		res, err := Compare(o, "float32", "copy", "int8", fakeRun(t, differ, &runs))
		if res.Documents != 10 || res.Skipped != 1 || res.Pairs != 20 || res.Identical != 16 || strings.Join(runs, ",") != "float32,copy" {
			t.Fatalf("min %v: %+v after runs %v", c.min, res, runs)
		}
		if math.Abs(res.F1-f1) > 1e-9 || math.Abs(res.EM-80) > 1e-9 || res.MaxDrift != 0.25 || math.Abs(res.MeanDrift-0.05) > 1e-12 {
			t.Errorf("min %v: EM %v F1 %v drift %v/%v, want 80, %v, 0.05/0.25", c.min, res.EM, res.F1, res.MeanDrift, res.MaxDrift, f1)
		}
		if c.pass != (err == nil) || res.Pass() != c.pass {
			t.Errorf("min %v: err %v, pass %v; want pass %v", c.min, err, res.Pass(), c.pass)
		}
		if !c.pass && (!errors.Is(err, ErrBelow) || errkind.Of(err) != errkind.Records || !strings.Contains(err.Error(), "--check-min-f1") || !strings.Contains(err.Error(), "int8 copy")) {
			t.Errorf("min %v: %v (kind %v), want ErrBelow of kind Records naming the flag", c.min, err, errkind.Of(err))
		}
	}
	b, err := os.ReadFile(filepath.Join(o.Dir, "sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(string(b), "\n", 2)[0]; first != `{"id":"d0","context":"Alpha0 beta gamma","questions":["global?","own 0?"]}` {
		t.Errorf("sample's first line %s", first)
	}

	o.Fields = record.Fields{Context: "text"}
	if _, err := Compare(o, "float32", "copy", "int8", fakeRun(t, nil, new([]string))); err == nil || !strings.Contains(err.Error(), `--context-field text: none of the first`) {
		t.Errorf("no record has the context field: %v", err)
	}
}
