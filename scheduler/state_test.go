package scheduler

import (
	"context"
	"sync"
	"testing"

	"qa-shard/qa"
)

// allProgress keeps every Progress the Observer gets.
type allProgress struct {
	nopObserver
	mu  sync.Mutex
	all []Progress
}

func (o *allProgress) Progress(p Progress) {
	o.mu.Lock()
	o.all = append(o.all, p)
	o.mu.Unlock()
}

// TestRunState: a run is running until a stop or drain begins (stopping),
// and its last Progress says done only when it answered its whole input;
// one stopped part-way ends stopping.
func TestRunState(t *testing.T) {
	p := newPipeline(testConfig(), source(nil, "who"), wordTokenizer{}, nil, &memSink{}, nil)
	if s := p.state(); s != Running {
		t.Fatalf("a new run is %s, want running", s)
	}
	p.progress.stopping.Store(true)
	if s := p.state(); s != Stopping {
		t.Fatalf("after a stop began: %s, want stopping", s)
	}

	lines := corpus(300, 60, 8)
	for _, stopAt := range []int64{0, 3} {
		fakes, rs := newReplicas(2, 0)
		cfg := testConfig()
		obs := &allProgress{}
		cfg.Observer = obs
		if stopAt > 0 {
			stop := make(chan struct{})
			var once sync.Once
			for _, f := range fakes {
				f.before = func(ctx context.Context, _ qa.Batch) error {
					if f.calls.Load() == stopAt {
						once.Do(func() { close(stop) })
					}
					return nil
				}
			}
			cfg.Stop = stop
			cfg.MaxInFlightBytes = 16 << 10
		}
		sum, err := runGuarded(t, guard(t), cfg, source(lines, "who"), rs, &memSink{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		last := obs.all[len(obs.all)-1].State
		switch {
		case stopAt == 0 && (sum.Interrupted || last != Done):
			t.Errorf("a complete run ends %s (interrupted %v), want done", last, sum.Interrupted)
		case stopAt > 0 && (!sum.Interrupted || last != Stopping):
			t.Errorf("a drained run ends %s (interrupted %v), want stopping", last, sum.Interrupted)
		}
	}
}
