package scheduler

import (
	"errors"
	"testing"
	"time"

	"qa-shard/internal/record"
)

// failAfter yields the documents of a reader, then fails as a corrupt
// compressed file does.
type failAfter struct {
	src *record.Stream
	n   int
	err error
}

func (f *failAfter) Next() (record.Document, error) {
	if f.n == 0 {
		return record.Document{}, f.err
	}
	f.n--
	return f.src.Next()
}

// TestRunInputFailsAfterDraining: when the input fails, the documents
// read before are answered and written, then Run returns the failure, so
// a resume starts right at the damaged place.
func TestRunInputFailsAfterDraining(t *testing.T) {
	boom := errors.New("corrupt gzip data")
	lines := corpus(30, 150, 5)
	_, rs := newReplicas(2, time.Millisecond)
	var sink memSink
	sum, err := runGuarded(t, guard(t), testConfig(), &failAfter{src: source(lines, "who founded the company"), n: 30, err: boom}, rs, &sink, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the input's failure", err)
	}
	if sum.Next != 30 || len(sink.records) != 30 || sum.Interrupted {
		t.Errorf("next %d, %d records, interrupted %v: want all 30 documents written first", sum.Next, len(sink.records), sum.Interrupted)
	}
}

// offsetOf is where 1-based line n of lines starts in reader's input.
func offsetOf(lines []string, n int64) int64 {
	var at int64
	for _, l := range lines[:n-1] {
		at += int64(len(l)) + 1
	}
	return at
}
