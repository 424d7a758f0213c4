package scheduler

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"qa-shard/qa"
)

// nanRows makes every row of b that holds id non-finite: NaN start logits
// and an infinite end logit, as an overflow gives.
func nanRows(id int32) func(b qa.Batch, out qa.Logits) {
	return func(b qa.Batch, out qa.Logits) {
		for row := range b.Rows {
			ids := b.InputIDs[row*b.Len : (row+1)*b.Len]
			if !batchHas(qa.Batch{InputIDs: ids}, id) {
				continue
			}
			for j := row * b.Len; j < (row+1)*b.Len; j++ {
				out.Start[j] = float32(math.NaN())
			}
			out.End[row*b.Len] = float32(math.Inf(1))
		}
	}
}

// checkFiniteLogits fails t if a logits row the sink received is not finite.
func checkFiniteLogits(t *testing.T, lg *rowSink) {
	t.Helper()
	for _, r := range lg.rows {
		if !finite(r.StartLogits) || !finite(r.EndLogits) {
			t.Fatalf("logits of %s window %d are not finite", r.Pos, r.Window)
		}
	}
}

// TestNonFiniteRetriedOnAnotherReplica: a replica whose logits for one
// window are NaN (a device fault) has that window run once more on the
// other replica, and every document is answered as if nothing happened.
func TestNonFiniteRetriedOnAnotherReplica(t *testing.T) {
	lines := corpus(200, 100, 4)
	lines[7] = jsonLine(7, "poison pill in the company")
	fakes, rs := newReplicas(2, time.Millisecond)
	fakes[0].spoil = nanRows(wordID("poison"))
	var elsewhere atomic.Int64
	fakes[1].after = func(b qa.Batch) {
		if batchHas(b, wordID("poison")) {
			elsewhere.Add(1)
		}
	}
	want := &memSink{}
	if _, err := runGuarded(t, guard(t), testConfig(), source(lines, "who founded the company"), rs[1:], want, nil); err != nil {
		t.Fatalf("baseline: %v", err)
	}
	elsewhere.Store(0)
	sink, lg := &memSink{}, &rowSink{}
	sum, err := runGuarded(t, guard(t), testConfig(), source(lines, "who founded the company"), rs, sink, lg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if sum.RecordErrors != 0 || len(sink.records) != 200 {
		t.Fatalf("%d records, %d errors; want 200 answers", len(sink.records), sum.RecordErrors)
	}
	if elsewhere.Load() == 0 {
		t.Fatal("the window never ran on the replica whose logits are finite")
	}
	for i := range sink.records {
		if got, w := *sink.records[i].answer, *want.records[i].answer; !reflect.DeepEqual(got.Answers, w.Answers) {
			t.Fatalf("document %d: answers %+v, want %+v", i, got.Answers, w.Answers)
		}
	}
	checkFiniteLogits(t, lg)
}

// TestNonFiniteBecomesErrorRecord: a window whose logits are NaN on every
// replica (the model overflows on that input) is tried twice, then its
// question gets an error record naming the window; every other document
// is answered and no non-finite logits reach the sinks.
func TestNonFiniteBecomesErrorRecord(t *testing.T) {
	lines := corpus(200, 100, 4)
	lines[7] = jsonLine(7, "poison pill in the company")
	for _, n := range []int{1, 2} {
		fakes, rs := newReplicas(n, time.Millisecond)
		var tries atomic.Int64
		for _, f := range fakes {
			f.spoil = nanRows(wordID("poison"))
			f.after = func(b qa.Batch) {
				if batchHas(b, wordID("poison")) {
					tries.Add(1)
				}
			}
		}
		sink, lg := &memSink{}, &rowSink{}
		sum, err := runGuarded(t, guard(t), testConfig(), source(lines, "who founded the company"), rs, sink, lg)
		if err != nil {
			t.Fatalf("%d replicas: Run: %v", n, err)
		}
		if sum.RecordErrors != 1 || len(sink.records) != 200 || sink.records[7].err == nil {
			t.Fatalf("%d replicas: %d records, %d errors; want 200 records, an error for document 7", n, len(sink.records), sum.RecordErrors)
		}
		if e := sink.records[7].err.Error; !strings.Contains(e, "the model gave non-finite logits for window 1") {
			t.Errorf("%d replicas: error record %q does not name the window", n, e)
		}
		if tries.Load() != 2 {
			t.Errorf("%d replicas: the window ran %d times, want 2 (once more after the first NaN)", n, tries.Load())
		}
		checkFiniteLogits(t, lg)
	}
}

// TestNonFiniteModelRefused: a model whose every window gives NaN logits,
// tried twice, stops the run with ErrNonFiniteModel before any answer.
func TestNonFiniteModelRefused(t *testing.T) {
	lines := corpus(50, 100, 4)
	fakes, rs := newReplicas(2, 0)
	for _, f := range fakes {
		f.spoil = func(b qa.Batch, out qa.Logits) {
			for i := range out.Start {
				out.Start[i] = float32(math.NaN())
			}
		}
	}
	sink := &memSink{}
	_, err := runGuarded(t, guard(t), testConfig(), source(lines, "who founded the company"), rs, sink, nil)
	if !errors.Is(err, ErrNonFiniteModel) {
		t.Fatalf("Run: %v, want ErrNonFiniteModel", err)
	}
	for _, r := range sink.records {
		if r.answer != nil {
			t.Fatalf("an answer was written from NaN logits: %+v", r.answer)
		}
	}
}
