package scheduler

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"qa-shard/qa"
)

var errPoison = errors.New("poisoned batch")

// TestPoisonedWindowBecomesErrorRecord: a batch that fails because of
// one document's content is bisected until the window at fault runs alone;
// that (document, question) gets an error record naming the replica and
// the cause, and every other document is answered.
func TestPoisonedWindowBecomesErrorRecord(t *testing.T) {
	lines := corpus(200, 100, 4)
	lines[7] = jsonLine(7, "poison pill in the company")
	marker := wordID("poison")
	fakes, rs := newReplicas(4, time.Millisecond)
	for _, f := range fakes {
		f.before = func(_ context.Context, b qa.Batch) error {
			if batchHas(b, marker) {
				return errPoison
			}
			return nil
		}
	}
	sink := &memSink{}
	sum, err := runGuarded(t, guard(t), testConfig(), source(lines, "who founded the company"), rs, sink, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if sum.RecordErrors != 1 || len(sink.records) != 200 {
		t.Fatalf("%d records, %d errors; want 200 records, 1 error", len(sink.records), sum.RecordErrors)
	}
	for i, r := range sink.records {
		if (r.err != nil) != (i == 7) {
			t.Fatalf("record %d: error %v; only document 7 may fail", i, r.err)
		}
	}
	e := sink.records[7].err
	if e.Question != "who founded the company" || !strings.Contains(e.Error, errPoison.Error()) ||
		!strings.Contains(e.Error, "replica fake:") || !strings.Contains(e.Error, "single window") {
		t.Errorf("error record %+v: want the question, the replica and the poison error", e)
	}
}

// fatalError is how a replica's error says its session is broken (as
// worker.RunError does); the scheduler no longer reads error texts.
type fatalError struct{ error }

func (fatalError) Fatal() bool { return true }

var errSticky = fatalError{errors.New("CUDA failure 700: an illegal memory access was encountered")}

// TestFatalReplicaRetires: a replica with a sticky fatal error (no
// Rebuild) is retired and its batch goes to the others; the output is
// complete and identical to a run without the fault.
func TestFatalReplicaRetires(t *testing.T) {
	lines := corpus(300, 100, 5)
	run := func(broken bool) []sunk {
		fakes, rs := newReplicas(3, time.Millisecond)
		if broken {
			fakes[1].before = func(context.Context, qa.Batch) error { return errSticky }
		}
		sink := &memSink{}
		if _, err := runGuarded(t, guard(t), testConfig(), source(lines, "who"), rs, sink, nil); err != nil {
			t.Fatalf("Run (broken=%v): %v", broken, err)
		}
		if broken && fakes[1].calls.Load() != 1 {
			t.Errorf("the broken replica ran %d batches; it should retire after its first", fakes[1].calls.Load())
		}
		return sink.records
	}
	want, got := run(false), run(true)
	if len(got) != len(want) {
		t.Fatalf("%d records with a broken replica, %d without", len(got), len(want))
	}
	for i := range want {
		if want[i].answer == nil || got[i].answer == nil || want[i].answer.Answer != got[i].answer.Answer || want[i].answer.Score != got[i].answer.Score {
			t.Fatalf("record %d differs: %+v vs %+v", i, got[i], want[i])
		}
	}
}

// TestAllReplicasRetired: when every replica fails fatally the run stops
// with ErrAllReplicasFailed (main exits 75), never a panic or a hang,
// also while windowless bad lines still flow to the writer.
func TestAllReplicasRetired(t *testing.T) {
	lines := []string{jsonLine(0, "the company")}
	for i := 1; i < 3000; i++ {
		lines = append(lines, `{"id": `+strconv.Itoa(i)+`}`)
	}
	lines = append(lines, jsonLine(3000, "the company"))
	for i := range 10 {
		fakes, rs := newReplicas(2, 0)
		for _, f := range fakes {
			f.before = func(context.Context, qa.Batch) error { return errSticky }
		}
		_, err := runGuarded(t, guard(t), testConfig(), source(lines, "who"), rs, &memSink{}, nil)
		if !errors.Is(err, ErrAllReplicasFailed) {
			t.Fatalf("run %d: Run returned %v, want ErrAllReplicasFailed", i, err)
		}
	}
}

// TestRunCancel: canceling the context mid-run makes Run return the
// context's error, and every goroutine the run started ends. The run is
// in a synctest bubble, which ends only when every goroutine started in it
// has ended: one left blocked fails the test as a deadlock, naming it.
func TestRunCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(guard(t))
		defer cancel()
		fakes, rs := newReplicas(3, 0)
		var calls atomic.Int64
		for _, f := range fakes {
			f.before = func(context.Context, qa.Batch) error {
				if calls.Add(1) == 5 {
					cancel()
				}
				return nil
			}
		}
		const n = 20000
		cfg := testConfig()
		cfg.MaxBatchTokens = 128
		sum, err := runGuarded(t, ctx, cfg, source(corpus(n, 100, 5), "who founded the company"), rs, &memSink{}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
		if sum.Documents >= n {
			t.Errorf("all %d documents were written after the cancel", sum.Documents)
		}
	})
}
