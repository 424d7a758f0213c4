package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/record"
	"qa-shard/output/logits"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/worker"
)

// TestBatchedEqualsSingleWindows is the core promise: pooling windows of
// many documents, sorting them by length, padding them into batches and
// spreading them over replicas changes nothing. Every window's logits are
// recomputed alone and unpadded, and every answer is decoded again from
// those.
func TestBatchedEqualsSingleWindows(t *testing.T) {
	checkBatchedEqualsSingle(t, model(t, "tiny"))
}

// checkBatchedEqualsSingle runs the promise above on one model, and checks
// that every answer's offsets cut its text out of the context.
func checkBatchedEqualsSingle(t *testing.T, dir string) {
	corpus := writeCorpus(t, 40, 1)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	lg := filepath.Join(t.TempDir(), "logits")
	code, stderr := runCLI(t, "--devices", "cpu:2", "--threads", "1", "--model", dir, "--input", corpus,
		"--question", "Who founded the company?", "--output", out, "--logits", lg, "--max-batch-tokens", "1024")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rows, err := logits.ReadDir(lg)
	if err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, out)
	docs := readContexts(t, corpus)

	rep := singleReplica(t, dir)
	single := map[[3]int64][]qa.Logits{} // (document, question, window) -> logits alone
	var worst float64
	multiWindow := 0
	docOf := map[int64]int64{} // a row's position -> the document's index
	for _, r := range rows {
		l := runAlone(t, rep, r)
		worst = max(worst, maxDiff(l.Start, r.StartLogits), maxDiff(l.End, r.EndLogits))
		if _, ok := docOf[r.Pos.At]; !ok {
			docOf[r.Pos.At] = int64(len(docOf))
		}
		key := [3]int64{docOf[r.Pos.At], int64(r.QuestionIndex)}
		single[key] = append(single[key], l)
		if r.Window > 0 {
			multiWindow++
		}
	}
	if worst > 1e-4 {
		t.Errorf("batched logits differ from single-window logits by up to %g (limit 1e-4)", worst)
	}
	if multiWindow == 0 {
		t.Fatal("the corpus produced no multi-window document; the test would prove nothing about windows")
	}
	t.Logf("%d windows, %d beyond the first of their document, max |diff| %.2g", len(rows), multiWindow, worst)

	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	sp := tok.Template()
	s := qa.DefaultSettings()
	i := 0
	for seq, d := range docs {
		for qi, q := range d.questions {
			rec := recs[i]
			i++
			ws, err := qa.Windows(tok.Encode(q), tok.Encode(d.context), sp, s)
			if err != nil {
				t.Fatal(err)
			}
			alone := single[[3]int64{int64(seq), int64(qi)}]
			if len(alone) != len(ws) || int(rec["windows"].(float64)) != len(ws) {
				t.Fatalf("doc %d question %d: %d windows in logits, %v in answers, %d expected", seq, qi, len(alone), rec["windows"], len(ws))
			}
			ctx := tok.Encode(d.context)
			results := make([]qa.WindowResult, len(ws))
			for wi, w := range ws {
				if results[wi], err = qa.DecodeWindow(w, ctx, sp, alone[wi].Start, alone[wi].End, s); err != nil {
					t.Fatal(err)
				}
			}
			want := qa.Answers(d.context, results, s)[0]
			if cut := string([]rune(d.context)[want.Start:want.End]); cut != want.Text {
				t.Errorf("doc %d: answer %q at code points [%d,%d) of the context, which hold %q", seq, want.Text, want.Start, want.End, cut)
			}
			if rec["answer"] != want.Text || int(rec["start"].(float64)) != want.Start || int(rec["end"].(float64)) != want.End ||
				math.Abs(rec["score"].(float64)-want.Score) > 1e-4*math.Max(want.Score, 1e-3) {
				t.Errorf("doc %d question %q: batched answer %v, single-window answer %+v", seq, q, rec, want)
			}
			// The raw logits: the null logit is the smallest first-token
			// start+end of the windows, read here from the logits alone;
			// the span logit is the single-window decoding's.
			null := math.Inf(1)
			for _, l := range alone {
				null = min(null, float64(l.Start[0])+float64(l.End[0]))
			}
			if math.Abs(rec["null_logit"].(float64)-null) > 1e-3 || math.Abs(rec["span_logit"].(float64)-want.SpanLogit) > 1e-3 {
				t.Errorf("doc %d question %q: span logit %v, null logit %v; the single windows give %v and %v", seq, q, rec["span_logit"], rec["null_logit"], want.SpanLogit, null)
			}
		}
	}
	if i != len(recs) {
		t.Errorf("%d records written, %d expected", len(recs), i)
	}
}

type corpusDoc struct {
	context   string
	questions []string
}

// readContexts reads the corpus back with the questions each document is
// asked: the global one first, then its own.
func readContexts(t *testing.T, path string) []corpusDoc {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct{ Context, Question string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		qs := []string{"Who founded the company?"}
		if d.Question != "" {
			qs = append(qs, d.Question)
		}
		out = append(out, corpusDoc{d.Context, qs})
	}
	return out
}

func singleReplica(t *testing.T, dir string) *worker.Replica {
	t.Helper()
	if err := worker.Init(ortLib); err != nil {
		t.Fatal(err)
	}
	m, err := worker.OpenModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: "alone", Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// runAlone runs one window as a batch of one, without padding.
func runAlone(t *testing.T, r *worker.Replica, row record.LogitsRow) qa.Logits {
	t.Helper()
	n := len(row.InputIDs)
	b := qa.Batch{Rows: 1, Len: n, InputIDs: make([]int64, n), AttentionMask: make([]int64, n), TypeIDs: make([]int64, n)}
	for i, id := range row.InputIDs {
		b.InputIDs[i] = int64(id)
		b.AttentionMask[i] = 1
		if row.SequenceIDs[i] == 1 || i == n-1 {
			b.TypeIDs[i] = 1
		}
	}
	l, err := r.Run(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

func readLogitsDir(dir string) ([]record.LogitsRow, error) { return logits.ReadDir(dir) }
