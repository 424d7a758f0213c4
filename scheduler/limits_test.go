package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// TestMaxWindowsPerDoc: a document needing more windows than the limit
// (both questions together) gets one error record per question naming the
// count and the flag, none of its windows reaches a replica, and every
// other document is answered as without the limit.
func TestMaxWindowsPerDoc(t *testing.T) {
	questions := []string{"who founded the company", "where is the headquarters"}
	lines := corpus(40, 30, 7) // at most 30 words: one window per question
	huge := strings.Repeat("poison ", 5000)
	lines[17] = jsonLine(17, huge)
	var tok wordTokenizer
	need := 0
	for _, q := range questions {
		need += qa.WindowCount(tok.Encode(q).Len(), 5000, 3, testSettings())
	}
	fakes, rs := newReplicas(2, 0)
	var poisoned atomic.Int64
	for _, f := range fakes {
		f.after = func(b qa.Batch) {
			if batchHas(b, wordID("poison")) {
				poisoned.Add(1)
			}
		}
	}
	cfg := testConfig()
	cfg.MaxWindowsPerDoc = 4
	var sink memSink
	sum, err := runGuarded(t, guard(t), cfg, source(lines, questions...), rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := poisoned.Load(); n != 0 {
		t.Errorf("%d batches held windows of the refused document", n)
	}
	if sum.RecordErrors != 2 || sum.Pairs != 78 || sum.Windows != 78 {
		t.Errorf("summary %+v, want 2 error records, 78 answers from 78 windows", sum)
	}
	for i, r := range sink.records[34:36] {
		if r.err == nil || string(r.err.ID) != "17" || r.err.Question != questions[i] {
			t.Fatalf("record %d: %+v, want an error record of document 17 for %q", 34+i, r, questions[i])
		}
		for _, want := range []string{fmt.Sprintf("needs %d windows", need), "5000 context tokens", "--max-windows-per-doc 4"} {
			if !strings.Contains(r.err.Error, want) {
				t.Errorf("error record %q lacks %q", r.err.Error, want)
			}
		}
	}
	// Without the limit the same document is answered, over its windows.
	cfg.MaxWindowsPerDoc = 0
	sink = memSink{}
	if sum, err := runGuarded(t, guard(t), cfg, source(lines, questions...), rs, &sink, nil); err != nil || sum.RecordErrors != 0 || sum.Windows != int64(78+need) {
		t.Errorf("without a limit: %+v %v, want %d windows and no error record", sum, err, 78+need)
	}
}

// failingSink fails its nth record.
type failingSink struct {
	memSink
	n int
}

var errSink = errors.New("disk on fire")

func (s *failingSink) WriteAnswer(a record.AnswerRecord) error {
	if s.n--; s.n == 0 {
		return errSink
	}
	return s.memSink.WriteAnswer(a)
}

// TestWriteFailureIsErrWrite: a sink failure stops the run with ErrWrite
// (so the caller does not checkpoint a half-written document) and its
// cause, and Next stays at the document whose records failed.
func TestWriteFailureIsErrWrite(t *testing.T) {
	_, rs := newReplicas(2, 0)
	sink := &failingSink{n: 11} // the second question of document 5
	sum, err := runGuarded(t, guard(t), testConfig(), source(corpus(30, 20, 3), "who", "where"), rs, sink, nil)
	if !errors.Is(err, ErrWrite) || !errors.Is(err, errSink) || !strings.Contains(err.Error(), "document 5") {
		t.Fatalf("Run = %v, want ErrWrite of document 5 wrapping the sink's error", err)
	}
	if sum.Next != 5 {
		t.Errorf("Next = %d, want 5", sum.Next)
	}
}
