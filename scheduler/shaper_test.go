package scheduler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"qa-shard/qa"
)

// scriptShaper plans from a function of the batches seen so far and
// records what the scheduler tells it.
type scriptShaper struct {
	mu      sync.Mutex
	plan    func(replica string, ran int) int
	ran     int
	seen    map[string][]int // budgets of the batches each replica ran
	oom     []int
	retired []string
}

func (s *scriptShaper) Budget(replica string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan(replica, s.ran)
}

func (s *scriptShaper) Using(string) bool { return true }
func (s *scriptShaper) Done(float64)      {}

func (s *scriptShaper) Ran(replica string, budget, tokens, padded int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ran++
	if s.seen == nil {
		s.seen = map[string][]int{}
	}
	s.seen[replica] = append(s.seen[replica], budget)
}

func (s *scriptShaper) OutOfMemory(replica string, padded int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oom = append(s.oom, padded)
}

func (s *scriptShaper) Retired(replica string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retired = append(s.retired, replica)
}

// idleReplica records when the scheduler parks it or sets it aside.
type idleReplica struct {
	*fakeReplica
	mu     sync.Mutex
	events []string // "run", "idle", "idle for good"
}

func (r *idleReplica) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	r.mu.Lock()
	r.events = append(r.events, "run")
	r.mu.Unlock()
	return r.fakeReplica.Run(ctx, b)
}

func (r *idleReplica) Idle(forGood bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, map[bool]string{false: "idle", true: "idle for good"}[forGood])
}

func (r *idleReplica) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// TestShaperSwitchesLayout: layout "a" (one replica) runs first while the
// two replicas of layout "b" wait and idle; after six batches the shaper
// sets "a" aside and uses "b" at another budget. Every batch follows the
// budget planned for it, "a" runs nothing after it was set aside, and the
// answers are those of every window alone.
func TestShaperSwitchesLayout(t *testing.T) {
	lines := corpus(80, 150, 11)
	a := &idleReplica{fakeReplica: &fakeReplica{name: "a:0"}}
	b0 := &idleReplica{fakeReplica: &fakeReplica{name: "b:0"}}
	b1 := &idleReplica{fakeReplica: &fakeReplica{name: "b:1"}}
	parked := func() bool {
		return slices.Contains(b0.log(), "idle") && slices.Contains(b1.log(), "idle")
	}
	ctx := guard(t)
	a.before = func(context.Context, qa.Batch) error {
		// Order, not timing: "a" starts once both "b" replicas were parked.
		if !waitUntil(ctx, parked) {
			t.Error("the replicas of the unused layout were never parked")
		}
		return nil
	}
	sh := &scriptShaper{plan: func(replica string, ran int) int {
		switch {
		case ran < 6 && replica == "a:0":
			return 128
		case ran < 6:
			return 0
		case replica == "a:0":
			return -1
		}
		return 256
	}}
	var budgets sync.Map
	for _, r := range []*idleReplica{a, b0, b1} {
		r.after = func(b qa.Batch) { budgets.Store(b.Rows*b.Len, b.Rows) }
	}
	cfg := testConfig()
	cfg.Shaper = sh
	var sink memSink
	if _, err := runGuarded(t, ctx, cfg, source(lines, overlapQuestion), []Replica{a, b0, b1}, &sink, nil); err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, lines, &sink)
	// After six batches a is planned no more: it runs at most the batches
	// it already held (one running, one prepared), and none after it was
	// told it is set aside (it is told when it asks while work is queued).
	ev := a.log()
	if n := a.calls.Load(); n > 8 {
		t.Errorf("replica a ran %d batches; the shaper set it aside after 6 (+2 in hand)", n)
	}
	if i := slices.Index(ev, "idle for good"); i >= 0 && slices.Contains(ev[i:], "run") {
		t.Errorf("replica a: %v; a batch after it was set aside", ev)
	}
	if n := b0.calls.Load() + b1.calls.Load(); n == 0 {
		t.Error("layout b ran nothing after the switch")
	}
	// A batch cut short (its run ran out of windows) reports 0: no measure.
	measured := 0
	for name, want := range map[string]int{"a:0": 128, "b:0": 256, "b:1": 256} {
		for _, got := range sh.seen[name] {
			if got != want && got != 0 {
				t.Errorf("%s ran a batch cut at %d tokens, planned %d", name, got, want)
			}
			if got == want {
				measured++
			}
		}
	}
	if measured == 0 {
		t.Error("no batch reported the budget planned for it")
	}
	budgets.Range(func(k, v any) bool {
		if tokens, rows := k.(int), v.(int); tokens > 256 && rows > 1 {
			t.Errorf("a batch of %d rows and %d padded tokens: over every planned budget", rows, tokens)
		}
		return true
	})
}

// TestShaperHearsOutOfMemoryAndRetirement: a device that cannot hold more
// than 200 padded tokens, and one that breaks for good: the shaper hears
// of both, the batches are split and moved, and the answers are complete.
func TestShaperHearsOutOfMemoryAndRetirement(t *testing.T) {
	lines := corpus(60, 150, 13)
	fakes, rs := newReplicas(2, 0)
	ctx := guard(t)
	fakes[0].before = func(_ context.Context, b qa.Batch) error {
		// Order, not timing: the broken replica gets a batch first.
		if !waitUntil(ctx, func() bool { return fakes[1].calls.Load() > 0 }) {
			t.Error("the second replica never got a batch")
		}
		if b.Rows*b.Len > 200 {
			return oomError{errors.New("Failed to allocate memory for requested buffer")}
		}
		return nil
	}
	fakes[1].before = func(context.Context, qa.Batch) error {
		return fatalError{errors.New("CUDA failure 999: unknown error")}
	}
	sh := &scriptShaper{plan: func(string, int) int { return 512 }}
	cfg := testConfig()
	cfg.Shaper = sh
	var sink memSink
	if _, err := runGuarded(t, ctx, cfg, source(lines, overlapQuestion), rs, &sink, nil); err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, lines, &sink)
	if len(sh.oom) == 0 || slices.Min(sh.oom) <= 200 {
		t.Errorf("out-of-memory reports %v: want some, each over 200 padded tokens", sh.oom)
	}
	if !slices.Equal(sh.retired, []string{"fake:1"}) {
		t.Errorf("retired %v, want [fake:1]", sh.retired)
	}
}

// TestShaperParkingEveryReplicaFails: a shaper that parks every replica
// with work queued gets an error, not a hang.
func TestShaperParkingEveryReplicaFails(t *testing.T) {
	_, rs := newReplicas(2, 0)
	cfg := testConfig()
	cfg.Shaper = &scriptShaper{plan: func(string, int) int { return 0 }}
	var sink memSink
	_, err := runGuarded(t, guard(t), cfg, source(corpus(5, 50, 1), overlapQuestion), rs, &sink, nil)
	if err == nil || !strings.Contains(err.Error(), "waits for the shaper") {
		t.Fatalf("Run returned %v, want the error saying every replica waits", err)
	}
}
