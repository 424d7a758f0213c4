package evaluate

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cases below were worked out by hand from evaluate-v2.0.py's rules:
// normalize_answer = white_space_fix(remove_articles(remove_punc(lower(s))))
// with string.punctuation and r'\b(a|an|the)\b'; get_tokens splits the
// normalised text; compute_f1 intersects collections.Counters; the score
// of a question is the maximum over its gold answers that normalise to
// some text, or over [""] when none do; find_best_thresh walks the
// questions by rising na_prob from "everything answered no-answer".

func TestBestOverGoldAnswers(t *testing.T) {
	for _, c := range []struct {
		pred   string
		gold   []string
		em, f1 float64
	}{
		{"the Normans", []string{"Norse people", "Normans"}, 1, 1},
		// [10th century] against [10th and 11th centuries] (1 common: P 1/2,
		// R 1/4, F1 1/3) and [in 10th century] (2 common: P 1, R 2/3, F1 0.8).
		{"10th century", []string{"10th and 11th centuries", "in the 10th century"}, 0, 0.8},
		// Counter intersection: "a a b" has tokens [b] after articles go;
		// "x x y" against "x y y": 2 common (x once, y once), P=R=2/3.
		{"x x y", []string{"x y y"}, 0, 2.0 / 3},
		// A gold text that normalises to nothing is not a gold answer.
		{"the", []string{"the", "Paris"}, 0, 0},
		// All gold texts normalise to nothing: the only gold answer is "".
		{"", []string{"the", "."}, 1, 1},
		{"a", []string{"the"}, 1, 1},
		// No gold answer (SQuAD 2.0 impossible): "" is right, anything else wrong.
		{"", nil, 1, 1},
		{"Rollo", nil, 0, 0},
		{"Paris", []string{"paris."}, 1, 1},
	} {
		em, f1 := bestOf(c.pred, c.gold)
		if em != c.em || math.Abs(f1-c.f1) > 1e-12 {
			t.Errorf("%q against %q: EM %v F1 %v, want %v %v", c.pred, c.gold, em, f1, c.em, c.f1)
		}
	}
}

// TestSQuAD2Report: a SQuAD 2.0 gold of five questions (two with an
// answer, three without), matched by question id (question_id, else the
// record's id), with the HasAns/NoAns split and the best thresholds.
//
//	q1 has "Paris",        answered "Paris"    EM 1 F1 1    odds -3
//	q2 has "Ada Lovelace", answered "Lovelace" EM 0 F1 2/3  odds 0.5
//	q3 none,               answered "Berlin"   EM 0 F1 0    odds 1
//	q4 none,               answered ""         EM 1 F1 1    (odds 0)
//	q5 none,               answered "Rome"     EM 0 F1 0    odds 0.8
//
// exact 40, f1 (1 + 2/3 + 1)/5 = 53.33; HasAns 50 / 83.33; NoAns 33.33.
// Walk by odds q1, q4, q2, q5, q3 from 3 (the NoAns all right): EM 4, 4,
// 4, 3, 2: best 4/5 = 80 at -3; F1 4, 4, 4.667, 3.667, 2.667: best
// 4.667/5 = 93.33 at 0.5.
func TestSQuAD2Report(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "dev-v2.0.json")
	must(t, os.WriteFile(gold, []byte(`{"version": "v2.0", "data": [{"title": "T", "paragraphs": [
	 {"context": "c", "qas": [
	  {"id": "q1", "question": "Where?", "answers": [{"text": "Paris", "answer_start": 0}, {"text": "Paris", "answer_start": 9}], "is_impossible": false},
	  {"id": "q2", "question": "Who?", "answers": [{"text": "Ada Lovelace", "answer_start": 3}], "is_impossible": false},
	  {"id": "q3", "question": "Why?", "answers": [], "plausible_answers": [{"text": "Berlin", "answer_start": 1}], "is_impossible": true}]},
	 {"context": "d", "qas": [
	  {"id": "q4", "question": "When?", "answers": [], "is_impossible": true},
	  {"id": "q5", "question": "How?", "answers": [], "is_impossible": true}]}]}]}`), 0o644))
	answers := filepath.Join(dir, "answers.jsonl")
	must(t, os.WriteFile(answers, []byte(strings.Join([]string{
		`{"id":"dev-v2.0.json:0","question":"Where?","question_id":"q1","answer":"Paris","score":0.9,"start":0,"end":5,"span_logit":9,"null_logit":6,"windows":1}`,
		`{"id":"dev-v2.0.json:0","question":"Who?","question_id":"q2","answer":"Lovelace","score":0.5,"start":7,"end":15,"span_logit":4.5,"null_logit":5,"windows":1}`,
		`{"id":"dev-v2.0.json:0","question":"Why?","question_id":"q3","answer":"Berlin","score":0.4,"start":1,"end":7,"span_logit":2,"null_logit":3,"windows":1}`,
		`{"id":"dev-v2.0.json:1","question":"When?","question_id":"q4","answer":"","score":0.6,"start":0,"end":0,"span_logit":1,"null_logit":1,"windows":1}`,
		`{"id":"q5","question":"How?","answer":"Rome","score":0.3,"start":2,"end":6,"span_logit":0.2,"null_logit":1,"windows":1}`,
	}, "\n")+"\n"), 0o644))
	set, rows, err := Files(gold, []string{"r=" + answers}, 512)
	if err != nil {
		t.Fatal(err)
	}
	if !set.ByQuestion || set.Positions() || set.Kind != "SQuAD JSON v2.0" || len(set.Questions) != 5 {
		t.Fatalf("gold %+v", set)
	}
	r := rows[0].Report
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("exact", r.Overall.EM, 40)
	near("f1", r.Overall.F1, 100*(2+2.0/3)/5)
	near("HasAns_exact", r.HasAns.EM, 50)
	near("HasAns_f1", r.HasAns.F1, 100*(1+2.0/3)/2)
	near("NoAns_exact", r.NoAns.EM, 100.0/3)
	near("NoAns_f1", r.NoAns.F1, 100.0/3)
	if r.HasAns.N != 2 || r.NoAns.N != 3 || r.Overall.Missing != 0 || r.Best == nil {
		t.Fatalf("report %+v", r)
	}
	near("best_exact", r.Best.EM, 80)
	near("best_exact_thresh", r.Best.EMThresh, -3)
	near("best_f1", r.Best.F1, 100*(4+2.0/3)/5)
	near("best_f1_thresh", r.Best.F1Thresh, 0.5)

	var b strings.Builder
	must(t, WriteTable(&b, set, rows))
	for _, want := range []string{"token positions: not in this gold (SQuAD JSON v2.0)", "2 with an answer (HasAns), 3 without (NoAns)",
		"HasAns", "NoAns", "best EM", "thresh", "  40.0   53.3    50.0   83.3    33.3   33.3    80.0  -3.00    93.3   0.50        0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	must(t, WriteJSON(&b, rows))
	for _, want := range []string{`"best_f1_thresh":0.5`, `"HasAns_total":2`, `"NoAns_total":3`, `"exact":40`, `"total":5`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %s: %s", want, b.String())
		}
	}
}

// TestBestThresholdNeedsLogits: a non-empty answer without logits (an
// older output, another reader) leaves no threshold and says how many;
// empty answers need none; a missing answer scores 0 and stays out of the
// walk.
func TestBestThresholdNeedsLogits(t *testing.T) {
	gold := GoldSet{ByQuestion: true, Kind: "SQuAD JSON v2.0", Questions: []Gold{
		{ID: "a", Answers: []string{"x"}, Token: -1}, {ID: "b", Token: -1}, {ID: "c", Token: -1},
	}}
	r, err := Evaluate(gold, map[Key]Prediction{{ID: "a"}: {Answer: "x"}, {ID: "b"}: {}}, 512)
	if err != nil || r.Best != nil || r.NoLogits != 1 {
		t.Fatalf("without logits: best %+v, %d without, %v", r.Best, r.NoLogits, err)
	}
	r, err = Evaluate(gold, map[Key]Prediction{{ID: "a"}: {Answer: "x", Logits: true, SpanLogit: 2, NullLogit: 1}, {ID: "b"}: {}}, 512)
	if err != nil || r.Best == nil || r.Overall.Missing != 1 {
		t.Fatalf("with logits: %+v, %v", r, err)
	}
	// From b right (1): a adds 1 at odds -1; c is missing: 2/3.
	if math.Abs(r.Best.EM-200.0/3) > 1e-9 || r.Best.EMThresh != -1 {
		t.Errorf("best %+v, want EM 66.67 at -1", r.Best)
	}
	if _, err := Evaluate(gold, map[Key]Prediction{{ID: "d", Question: "q1"}: {QuestionID: "a"}, {ID: "d", Question: "q2"}: {QuestionID: "a"}}, 512); err == nil ||
		!strings.Contains(err.Error(), "2 answer records carry the id a") {
		t.Errorf("two records for one question id: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgree: an int8 reader's answers against float32's: identical ones,
// ones equal after normalisation, partial overlaps and a missing pair.
func TestAgree(t *testing.T) {
	ref := map[Key]Prediction{
		{"d1", "who"}:   {Answer: "Ada Lovelace", Score: 0.9, Start: 3, End: 15},
		{"d1", "where"}: {Answer: "Paris", Score: 0.5, Start: 20, End: 25},
		{"d2", "who"}:   {Answer: "Alan Turing", Score: 0.75, Start: 0, End: 11},
		{"d2", "where"}: {Answer: "", Score: 0.25},
		{"d3", "who"}:   {Answer: "Grace Hopper", Score: 0.6, Start: 9, End: 21},
	}
	other := map[Key]Prediction{
		{"d1", "who"}:   {Answer: "Ada Lovelace", Score: 0.875, Start: 3, End: 15}, // identical
		{"d1", "where"}: {Answer: "Paris.", Score: 0.5, Start: 20, End: 26},        // EM by normalisation
		{"d2", "who"}:   {Answer: "Turing", Score: 0.5, Start: 5, End: 11},         // F1 2/3
		{"d2", "where"}: {Answer: "", Score: 0.25},                                 // identical empty
		{"d9", "who"}:   {Answer: "ignored"},
	}
	a := Agree(ref, other)
	if a.Pairs != 5 || a.Missing != 1 || a.Identical != 2 {
		t.Fatalf("%+v", a)
	}
	if math.Abs(a.EM-60) > 1e-9 || math.Abs(a.F1-100*(3+2.0/3)/5) > 1e-9 {
		t.Errorf("EM %v F1 %v, want 60 and %v", a.EM, a.F1, 100*(3+2.0/3)/5)
	}
	if math.Abs(a.MeanDrift-(0.025+0.25)/4) > 1e-12 || a.MaxDrift != 0.25 {
		t.Errorf("drift mean %v max %v, want %v and 0.25", a.MeanDrift, a.MaxDrift, (0.025+0.25)/4)
	}
}
