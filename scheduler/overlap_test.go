//go:build testhooks

package scheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"qa-shard/qa"
)

// The tests below prove the overlap by the order of events, never by
// timing: a replica's batch (or a decoder) blocks until the event that
// must happen meanwhile has happened. Without the overlap they would wait
// for ever, and fail at the guard instead.

// oneWindowBatches is a run where every batch is one window (a budget
// smaller than any window), so batch k is the k-th window of the run and
// the number of batches is known in advance.
func oneWindowBatches(t *testing.T, n int) (Config, []string, int64) {
	t.Helper()
	lines := corpus(n, 150, 3)
	var total int64
	for _, l := range lines {
		_, ws := expectedAnswers(t, contextOf(t, l), overlapQuestion, testSettings())
		total += int64(len(ws))
	}
	cfg := testConfig()
	cfg.MaxBatchTokens = 8
	return cfg, lines, total
}

// TestNextBatchPreparedWhileRunning: batch k does not return until the
// tensors of batch k+1 are built: the feed works while the replica runs.
func TestNextBatchPreparedWhileRunning(t *testing.T) {
	cfg, lines, total := oneWindowBatches(t, 20)
	var prepared, runs atomic.Int64
	var missed atomic.Int64
	cfg.hooks.onPrepared = func(string, qa.Batch) { prepared.Add(1) }
	fakes, rs := newReplicas(1, 0)
	fakes[0].before = func(ctx context.Context, _ qa.Batch) error {
		k := runs.Add(1)
		if k < total && !waitUntil(ctx, func() bool { return prepared.Load() >= k+1 }) {
			missed.Add(1)
		}
		return nil
	}
	var sink memSink
	if _, err := runGuarded(t, guard(t), cfg, source(lines, overlapQuestion), rs, &sink, nil); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != total {
		t.Fatalf("%d batches, want %d (one per window)", runs.Load(), total)
	}
	if missed.Load() > 0 {
		t.Fatalf("%d of %d batches returned before the next batch was prepared", missed.Load(), total)
	}
	checkAnswers(t, lines, &sink)
}

// TestDecodeWhileNextBatchRuns: the windows of batch k are decoded only
// once batch k+1 has started: decoding is off the replica's goroutine.
func TestDecodeWhileNextBatchRuns(t *testing.T) {
	cfg, lines, total := oneWindowBatches(t, 20)
	var runs, decodes, missed atomic.Int64
	fakes, rs := newReplicas(1, 0)
	fakes[0].before = func(context.Context, qa.Batch) error { runs.Add(1); return nil }
	ctx := guard(t)
	cfg.hooks.onDecode = func(string, int) {
		j := decodes.Add(1)
		if j < total && !waitUntil(ctx, func() bool { return runs.Load() >= j+1 }) {
			missed.Add(1)
		}
	}
	var sink memSink
	if _, err := runGuarded(t, ctx, cfg, source(lines, overlapQuestion), rs, &sink, nil); err != nil {
		t.Fatal(err)
	}
	if decodes.Load() != total || missed.Load() > 0 {
		t.Fatalf("%d batches decoded of %d; %d decoded before the next batch started", decodes.Load(), total, missed.Load())
	}
	checkAnswers(t, lines, &sink)
}

// TestReplicaLocksOSThread: every batch of a replica runs on the same OS
// thread, and no two replicas share one, although each batch parks its
// goroutine (a sleep) and the runtime would otherwise move it.
func TestReplicaLocksOSThread(t *testing.T) {
	lines := corpus(60, 150, 5)
	fakes, rs := newReplicas(3, 0)
	var mu sync.Mutex
	tids := map[string]map[int]bool{}
	ctx := guard(t)
	least := func() int64 { return min(fakes[0].calls.Load(), fakes[1].calls.Load(), fakes[2].calls.Load()) }
	for _, f := range fakes {
		tids[f.name] = map[int]bool{}
		f.before = func(context.Context, qa.Batch) error {
			// Order, not timing: the first five batches go round in step,
			// so every replica runs at least five.
			if k := f.calls.Load(); k <= 5 && !waitUntil(ctx, func() bool { return least() >= k }) {
				t.Errorf("%s waited for ever for the others' batch %d", f.name, k)
			}
			before := syscall.Gettid()
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			tids[f.name][before] = true
			tids[f.name][syscall.Gettid()] = true
			mu.Unlock()
			return nil
		}
	}
	cfg := testConfig()
	cfg.MaxBatchTokens = 128
	var sink memSink
	if _, err := runGuarded(t, ctx, cfg, source(lines, overlapQuestion), rs, &sink, nil); err != nil {
		t.Fatal(err)
	}
	owner := map[int]string{}
	for _, f := range fakes {
		if f.calls.Load() < 5 {
			t.Fatalf("%s ran %d batches: too few to tell", f.name, f.calls.Load())
		}
		if len(tids[f.name]) != 1 {
			t.Errorf("%s ran on %d OS threads, want 1: %v", f.name, len(tids[f.name]), tids[f.name])
		}
		for tid := range tids[f.name] {
			if o, ok := owner[tid]; ok {
				t.Errorf("%s and %s share OS thread %d", o, f.name, tid)
			}
			owner[tid] = f.name
		}
	}
	if t.Failed() {
		t.Log(fmt.Sprint(tids))
	}
}
