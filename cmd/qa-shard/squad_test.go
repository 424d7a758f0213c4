package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// squadFromTestdata writes the held-out corpus (testdata/eval-docs.jsonl
// and its gold) as a SQuAD v2.0 dataset: each document a paragraph, its
// gold questions with ids and answers, and one question without an answer
// per paragraph. It returns the path and the questions' ids by (document,
// question).
func squadFromTestdata(t *testing.T, dir string) (string, map[[2]string]string) {
	t.Helper()
	type qa struct {
		ID           string           `json:"id"`
		Question     string           `json:"question"`
		Answers      []map[string]any `json:"answers"`
		IsImpossible bool             `json:"is_impossible"`
	}
	type paragraph struct {
		Context string `json:"context"`
		QAs     []qa   `json:"qas"`
	}
	var paras []paragraph
	index := map[string]int{}
	for _, line := range nonBlankLines(t, "testdata/eval-docs.jsonl") {
		var d struct{ ID, Context string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		index[d.ID] = len(paras)
		paras = append(paras, paragraph{Context: d.Context})
	}
	ids := map[[2]string]string{}
	for n, line := range nonBlankLines(t, "testdata/eval-gold.jsonl") {
		var g struct {
			ID, Question, Answer string
			Start                int
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		p := &paras[index[g.ID]]
		id := fmt.Sprintf("5733be284776f41900661%03x", n)
		p.QAs = append(p.QAs, qa{ID: id, Question: g.Question, Answers: []map[string]any{{"text": g.Answer, "answer_start": g.Start}}})
		ids[[2]string{g.ID, g.Question}] = id
	}
	for i := range paras {
		paras[i].QAs = append(paras[i].QAs, qa{ID: fmt.Sprintf("5ad39d53604f3c001a3fe%03x", i), Question: "What is the company's stock ticker?", Answers: []map[string]any{}, IsImpossible: true})
	}
	b, err := json.Marshal(map[string]any{"version": "v2.0", "data": []any{map[string]any{"title": "Companies", "paragraphs": paras}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dev-v2.0.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

func nonBlankLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSQuADInputAndEval: the demo model reads a SQuAD v2.0 dataset as
// --input (each paragraph a document, its questions with their ids kept
// as question_id) and gives, for each question, the answer it gives the
// same context and question as JSON lines; qa-shard eval scores the run
// against the same dataset by question id, split into HasAns and NoAns,
// with a best threshold from the answers' logits, and says that the gold
// has no token positions.
func TestSQuADInputAndEval(t *testing.T) {
	dir := t.TempDir()
	squad, ids := squadFromTestdata(t, dir)
	out := filepath.Join(dir, "answers.jsonl")
	if code, stderr := runCLI(t, "--devices", "cpu:2", "--model", model(t, "demo"), "--input", squad, "--keep-fields", "title", "--output", out); code != exitOK {
		t.Fatalf("SQuAD input: exit %d:\n%s", code, stderr)
	}
	plain := filepath.Join(dir, "plain.jsonl")
	if code, stderr := runCLI(t, "--devices", "cpu:2", "--model", model(t, "demo"), "--input", "testdata/eval-docs.jsonl",
		"--questions-file", "testdata/eval-questions.txt", "--output", plain); code != exitOK {
		t.Fatalf("JSON lines input: exit %d:\n%s", code, stderr)
	}
	type rec struct {
		ID, Question, Title, Answer string
		QuestionID                  string `json:"question_id"`
		Start, End                  int
		Score                       float64
	}
	want := map[[2]string]rec{}
	for _, line := range nonBlankLines(t, plain) {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		want[[2]string{r.ID, r.Question}] = r
	}
	lines := nonBlankLines(t, out)
	if len(lines) != len(ids)+12 {
		t.Fatalf("%d records, want %d questions with answers and 12 without", len(lines), len(ids))
	}
	matched := 0
	for _, line := range lines {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.QuestionID == "" || r.Title != "Companies" || !strings.HasPrefix(r.ID, "dev-v2.0.json:") {
			t.Errorf("record without its question's id, the title or the default id: %s", line)
		}
		for k, id := range ids {
			if id != r.QuestionID {
				continue
			}
			matched++
			w := want[k]
			if r.Question != k[1] || r.Answer != w.Answer || r.Start != w.Start || r.End != w.End || r.Score != w.Score {
				t.Errorf("question %s (%s %q): %q [%d,%d) %v; as JSON lines %q [%d,%d) %v", id, k[0], k[1], r.Answer, r.Start, r.End, r.Score, w.Answer, w.Start, w.End, w.Score)
			}
		}
	}
	if matched != len(ids) {
		t.Errorf("%d of the %d gold questions found by their id", matched, len(ids))
	}

	code, stdout, stderr := capture(t, func() int { return dispatch([]string{"eval", "--gold", squad, "demo=" + out}) })
	if code != exitOK {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	for _, says := range []string{"84 questions; token positions: not in this gold (SQuAD JSON v2.0)", "72 with an answer (HasAns), 12 without (NoAns)", "best EM"} {
		if !strings.Contains(stdout, says) {
			t.Errorf("eval's table lacks %q:\n%s", says, stdout)
		}
	}
	code, stdout, stderr = capture(t, func() int { return dispatch([]string{"eval", "--json", "--gold", squad, "demo=" + out}) })
	var m map[string]any
	if code != exitOK || json.Unmarshal([]byte(stdout), &m) != nil {
		t.Fatalf("eval --json: exit %d: %s%s", code, stdout, stderr)
	}
	// The demo model answers the company questions (make eval: EM above
	// 95 on them) and was never taught to abstain.
	if m["HasAns_exact"].(float64) < 90 || m["NoAns_total"].(float64) != 12 || m["missing"].(float64) != 0 || m["best_f1_thresh"] == nil {
		t.Errorf("eval --json: %s", stdout)
	}
	t.Logf("SQuAD eval of the demo model: %s", strings.TrimSpace(stdout))
}
