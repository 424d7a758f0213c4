package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"qa-shard/qa"
)

type oomError struct{ error }

func (oomError) OutOfMemory() bool { return true }

// TestClassify: the kind comes from the error's type through any wrapping,
// never from its text.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want failure
	}{
		{"typed out of memory, wrapped", fmt.Errorf("replica x: %w", oomError{errors.New("bfc arena")}), failOOM},
		{"typed fatal, wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", fatalError{errors.New("lost")})), failFatal},
		{"batch timeout", fmt.Errorf("%w after 1s: %w", ErrBatchTimeout, errors.New("terminated")), failFatal},
		{"unhealthy device", ErrUnhealthy, failFatal},
		{"OOM text without the type", errors.New("CUDA out of memory"), failOther},
		{"fatal text without the type", errors.New("CUDA failure 700: an illegal memory access was encountered"), failOther},
		{"plain", errors.New("poisoned batch"), failOther},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s: classify = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEmptyQuestionInRecord: a record's empty question gets an error
// record of its own; the record's other questions are answered.
func TestEmptyQuestionInRecord(t *testing.T) {
	lines := []string{
		`{"id": 0, "context": "the company was founded in paris", "questions": ["who founded it", ""]}`,
		`{"id": 1, "context": "the headquarters are in berlin", "question": " "}`,
	}
	_, rs := newReplicas(2, 0)
	sink := &memSink{}
	sum, err := runGuarded(t, guard(t), testConfig(), source(lines), rs, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.records) != 3 || sum.RecordErrors != 2 {
		t.Fatalf("%d records, %d errors; want 3 records (an answer and two errors)", len(sink.records), sum.RecordErrors)
	}
	if a := sink.records[0].answer; a == nil || a.Question != "who founded it" {
		t.Errorf("record 1: %+v, want the answer to the question that was asked", sink.records[0])
	}
	for _, r := range sink.records[1:] {
		if r.err == nil || !errors.Is(errEmptyQuestion, qa.ErrEmptyQuestion) || !strings.Contains(r.err.Error, "empty") {
			t.Errorf("record %+v: want an error record saying the question is empty", r)
		}
	}
}
