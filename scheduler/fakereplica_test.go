package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"qa-shard/qa"
)

// fakeReplica computes fakeLogits. Optional hooks: before runs first and
// may block or fail a batch; jitter sleeps a random time to scramble the
// order in which replicas finish. It counts what it ran.
type fakeReplica struct {
	name   string
	before func(ctx context.Context, b qa.Batch) error
	after  func(b qa.Batch)
	spoil  func(b qa.Batch, out qa.Logits) // may change the logits it returns
	jitter time.Duration
	rng    *rand.Rand // jitter's, seeded from jitterSeed
	rngMu  sync.Mutex

	calls, rows, tokens, padded atomic.Int64
}

func (r *fakeReplica) Name() string  { return r.name }
func (r *fakeReplica) Label() string { return "" } // shown by Name
func (r *fakeReplica) Idle(bool)     {}

// errNoRebuild: a fake has no session to recreate, so a fatal error
// retires it at once.
var errNoRebuild = errors.New("fake replica: no session to rebuild")

func (r *fakeReplica) Rebuild() error { return errNoRebuild }

func (r *fakeReplica) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	r.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return qa.Logits{}, err
	}
	if r.before != nil {
		if err := r.before(ctx, b); err != nil {
			return qa.Logits{}, err
		}
	}
	if r.jitter > 0 {
		select {
		case <-time.After(r.delay()):
		case <-ctx.Done():
			return qa.Logits{}, ctx.Err()
		}
	}
	r.rows.Add(int64(b.Rows))
	r.padded.Add(int64(b.Rows * b.Len))
	for _, m := range b.AttentionMask {
		r.tokens.Add(m)
	}
	out := fakeLogits(b)
	if r.spoil != nil {
		r.spoil(b, out)
	}
	if r.after != nil {
		r.after(b)
	}
	return out, nil
}

// delay is the next jitter: random in [0, jitter), from the replica's own
// seeded generator.
func (r *fakeReplica) delay() time.Duration {
	r.rngMu.Lock()
	defer r.rngMu.Unlock()
	return time.Duration(r.rng.Int64N(int64(r.jitter)))
}

func newReplicas(n int, jitter time.Duration) ([]*fakeReplica, []Replica) {
	fakes := make([]*fakeReplica, n)
	rs := make([]Replica, n)
	for i := range fakes {
		fakes[i] = &fakeReplica{name: fmt.Sprintf("fake:%d", i), jitter: jitter, rng: rand.New(rand.NewPCG(*jitterSeed, uint64(i)))}
		rs[i] = fakes[i]
	}
	return fakes, rs
}

func batchHas(b qa.Batch, id int32) bool {
	for _, x := range b.InputIDs {
		if x == int64(id) {
			return true
		}
	}
	return false
}
