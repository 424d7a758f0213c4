package scheduler

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"qa-shard/qa"
)

// TestStopDrains: closing Stop ends the run without error, reports
// Interrupted, and every document read before the stop is finished: the
// records written are exactly the first Next documents, in order.
func TestStopDrains(t *testing.T) {
	lines := corpus(2000, 60, 8)
	stop := make(chan struct{})
	var once sync.Once
	fakes, rs := newReplicas(2, 0)
	for _, f := range fakes {
		f.before = func(context.Context, qa.Batch) error {
			if f.calls.Load() == 3 {
				once.Do(func() { close(stop) })
			}
			return nil
		}
	}
	cfg := testConfig()
	cfg.Stop = stop
	cfg.MaxInFlightBytes = 64 << 10 // the reader lags, so the stop leaves input unread
	sink := &memSink{}
	sum, err := runGuarded(t, guard(t), cfg, source(lines, "who"), rs, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Next <= 0 || sum.Next >= 2000 {
		t.Fatalf("Interrupted %v, Next %d: want an interrupted run part-way", sum.Interrupted, sum.Next)
	}
	if int64(len(sink.records)) != sum.Next {
		t.Fatalf("%d records written, Next says %d", len(sink.records), sum.Next)
	}
	for i, r := range sink.records {
		if r.id() != strconv.Itoa(i) {
			t.Fatalf("record %d has id %s", i, r.id())
		}
	}
}

// TestSkipBelowAndCheckpoints: a resumed run writes only documents from
// SkipBelow on, and its checkpoints never go backwards or past what was
// written.
func TestSkipBelowAndCheckpoints(t *testing.T) {
	lines := corpus(500, 60, 9)
	_, rs := newReplicas(2, time.Millisecond)
	var mu sync.Mutex
	var marks []int64
	sink := &memSink{}
	cfg := testConfig()
	cfg.SkipBelow = 123
	cfg.CheckpointInterval = time.Millisecond
	cfg.Checkpoint = func(next int64) error {
		sink.mu.Lock()
		written := int64(len(sink.records))
		sink.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		if next-123 != written {
			t.Errorf("checkpoint at %d but %d records written after skipping 123", next, written)
		}
		marks = append(marks, next)
		return nil
	}
	sum, err := runGuarded(t, guard(t), cfg, source(lines, "who"), rs, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Next != 500 || len(sink.records) != 377 || sink.records[0].id() != "123" {
		t.Fatalf("Next %d, %d records starting at %s; want 500, 377, 123", sum.Next, len(sink.records), sink.records[0].id())
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(marks); i++ {
		if marks[i] < marks[i-1] {
			t.Fatalf("checkpoints went backwards: %v", marks)
		}
	}
}

// lastProgress keeps the Observer's latest Progress.
type lastProgress struct {
	nopObserver
	mu   sync.Mutex
	last Progress
}

func (o *lastProgress) Progress(p Progress) {
	o.mu.Lock()
	o.last = p
	o.mu.Unlock()
}

// TestProgressOfAResumedRank: a rank resumed inside its share (its input
// yields only its own documents, numbered from 0) counts as done the bytes
// of its documents written before, and ends at exactly 100% of its work.
func TestProgressOfAResumedRank(t *testing.T) {
	lines := corpus(100, 40, 13)[30:55]
	_, rs := newReplicas(2, 0)
	cfg := testConfig()
	cfg.SkipBelow = 10
	for _, l := range lines {
		cfg.TotalBytes += int64(len(l) + 1)
	}
	cfg.Total = 25
	obs := &lastProgress{}
	cfg.Observer = obs
	if _, err := runGuarded(t, guard(t), cfg, source(lines, "who"), rs, &memSink{}, nil); err != nil {
		t.Fatal(err)
	}
	if p := obs.last; p.Fraction != 1 || p.Docs != 25 || p.DocsTotal != 25 || p.ETA != 0 {
		t.Errorf("final progress %+v, want all 25 documents and exactly all the bytes done, ETA 0", p)
	}
}
