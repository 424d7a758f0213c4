package scheduler

import (
	"sync/atomic"

	"go.uber.org/zap"

	"qa-shard/qa"
)

// replica is the scheduler's view of one replica during a run. Each has
// two goroutines (serveStage): its feed asks for the next batch and builds
// its tensors while the current one runs, and serve runs batches back to
// back on one locked OS thread, handing the logits to the decoders.
type replica struct {
	Replica
	maxTokens atomic.Int64 // shrinks after out-of-memory errors
	rebuilt   bool
	unhealthy atomic.Bool
	slowest   atomic.Int64 // longest successful batch, ns

	reply chan grant    // dispatcher -> feed; one request outstanding at most
	ready chan prepared // feed -> serve: the next batch, tensors built

	// The dispatcher's own bookkeeping (its goroutine only).
	parked, stopped, failed bool
}

// prepared is a batch ready to run, or a note that the replica idles.
type prepared struct {
	b       *batch
	in      qa.Batch
	forGood bool // with b nil: idle for good
}

// fit splits a batch that exceeds this replica's (possibly reduced)
// token budget.
func (r *replica) fit(b *batch) []*batch {
	if len(b.refs) <= 1 || int64(len(b.refs)*b.len) <= r.maxTokens.Load() {
		return []*batch{b}
	}
	return append(r.fit(halves(b)[0]), r.fit(halves(b)[1])...)
}

// rebuild recreates r's session once, after a fatal error.
func (r *replica) rebuild(log *zap.Logger) bool {
	r.rebuilt = true
	if err := r.Rebuild(); err != nil {
		log.Error("rebuilding replica failed", zap.String("replica", r.Name()), zap.Error(err))
		return false
	}
	log.Warn("replica rebuilt after a fatal error", zap.String("replica", r.Name()))
	return true
}
