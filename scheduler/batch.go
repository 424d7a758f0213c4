package scheduler

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"qa-shard/qa"
)

// batch is a set of windows, sorted by length, padded to len. The batcher
// makes runs of a whole pool; the dispatcher cuts each batch a replica
// runs from the head of a run, at that replica's budget at that moment.
type batch struct {
	refs []windowRef
	len  int
	// budget is the token budget it was cut at, for the Shaper; 0 when the
	// batch does not measure it: a part of a split batch, or one cut short
	// because its run ran out of windows (see cut).
	budget int
}

// idleFlush is how long the batcher waits by default for more windows
// before it cuts what it has (Batching.IdleFlush); it keeps replicas busy
// when the reader is slow or the in-flight budget is exhausted.
const idleFlush = 20 * time.Millisecond

// batchStage pools windows from many documents and sorts the pool by
// length into one run, so windows of similar length share a batch and
// little is padding. Batches are cut from runs when a replica asks (see
// cutter), so the token budget may differ per replica and change during
// the run.
type batchStage struct {
	poolTokens int           // a pool this long is flushed
	single     bool          // every window is its own batch: flush each at once
	idle       time.Duration // a pool that waited this long for a window is flushed
	paused     <-chan struct{}
	flow       *flow
	pooled     atomic.Int64
}

func newBatchStage(cfg Config, f *flow) *batchStage {
	return &batchStage{poolTokens: cfg.PoolTokens, single: cfg.SingleWindowBatches, idle: cfg.IdleFlush, paused: cfg.InputIdle, flow: f}
}

func (s *batchStage) run(ctx context.Context, in <-chan windowRef, out chan<- *batch) error {
	var pool []windowRef
	poolTokens := 0
	timer := time.NewTimer(s.idle)
	defer timer.Stop()
	flush := func() error {
		if run := sortRun(pool); run != nil {
			if err := send(ctx, out, run); err != nil {
				return err
			}
		}
		pool, poolTokens = pool[:0], 0
		s.pooled.Store(0)
		return nil
	}
	// paused: the input paused and the pool is to be cut once every
	// document read has its windows in it (see flow).
	paused := false
	cutIfSettled := func() error {
		if paused && len(in) == 0 && s.flow.settled() {
			paused = false
			return flush()
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r, ok := <-in:
			if !ok {
				return flush()
			}
			pool = append(pool, r)
			poolTokens += r.window().Len()
			s.pooled.Store(int64(len(pool)))
			if poolTokens >= s.poolTokens || s.single {
				if err := flush(); err != nil {
					return err
				}
			}
			if err := cutIfSettled(); err != nil {
				return err
			}
			timer.Reset(s.idle)
		case <-s.paused:
			paused = true
			if err := cutIfSettled(); err != nil {
				return err
			}
		case <-s.flow.wake:
			if err := cutIfSettled(); err != nil {
				return err
			}
		case <-timer.C:
			if err := flush(); err != nil {
				return err
			}
			timer.Reset(s.idle)
		}
	}
}

// sortRun sorts windows by length, stably so document order breaks ties.
func sortRun(pool []windowRef) *batch {
	if len(pool) == 0 {
		return nil
	}
	sorted := slices.Clone(pool)
	slices.SortStableFunc(sorted, func(a, b windowRef) int { return a.window().Len() - b.window().Len() })
	return &batch{refs: sorted, len: padTo8(sorted[len(sorted)-1].window().Len())}
}

// cut takes the next batch from the head of a sorted run, greedily: it
// grows while rows times its padded length stays within maxTokens and
// rows within maxRows (0: no limit). A window longer than the budget still
// runs, alone. rest is nil when the run is used up.
func cut(run *batch, maxTokens, maxRows int) (head, rest *batch) {
	n := 1
	for n < len(run.refs) && (maxRows <= 0 || n < maxRows) &&
		(n+1)*padTo8(run.refs[n].window().Len()) <= maxTokens {
		n++
	}
	head = &batch{refs: run.refs[:n:n], len: padTo8(run.refs[n-1].window().Len()), budget: maxTokens}
	if n < len(run.refs) {
		rest = &batch{refs: run.refs[n:], len: run.len}
	} else if (maxRows <= 0 || n < maxRows) && (n+1)*head.len <= maxTokens {
		// The run ran out before the budget was reached (its tail, or a
		// pool flushed while the reader was slow): another window as long
		// would have fit, so the batch measures the pool, not the budget.
		head.budget = 0
	}
	return head, rest
}

// cutter is how the dispatcher cuts a replica's batch from a run.
type cutter struct {
	single  bool // Batching.SingleWindowBatches
	maxRows int  // Batching.MaxBatchRows (0: no cap)
}

// next takes the next batch from the head of a run at budget: with
// SingleWindowBatches one window at its own length, unpadded, whatever the
// budget (a model that quantizes activations at run time gives a window
// other logits beside other rows or padding), else cut.
func (c cutter) next(run *batch, budget int) (head, rest *batch) {
	if !c.single {
		return cut(run, budget, c.maxRows)
	}
	head = &batch{refs: run.refs[:1:1], len: run.refs[0].window().Len(), budget: budget}
	if len(run.refs) > 1 {
		rest = &batch{refs: run.refs[1:], len: run.len}
	}
	return head, rest
}

// cutBatches sorts a pool and cuts all of it at one budget.
func cutBatches(pool []windowRef, maxTokens, maxRows int) []*batch {
	var out []*batch
	for run := sortRun(pool); run != nil; {
		var head *batch
		head, run = cut(run, maxTokens, maxRows)
		out = append(out, head)
	}
	return out
}

// padTo8 rounds up to a multiple of 8, the granularity tensor cores and
// most CPU kernels prefer.
func padTo8(n int) int { return (n + 7) &^ 7 }

// tensors lays a batch out as model input.
func (b *batch) tensors(pad int32) qa.Batch {
	rows, l := len(b.refs), b.len
	out := qa.Batch{Rows: rows, Len: l,
		InputIDs: make([]int64, rows*l), AttentionMask: make([]int64, rows*l), TypeIDs: make([]int64, rows*l)}
	for i, r := range b.refs {
		w := r.window()
		row := i * l
		for j, id := range w.IDs {
			out.InputIDs[row+j] = int64(id)
			out.AttentionMask[row+j] = 1
			out.TypeIDs[row+j] = int64(w.TypeIDs[j])
		}
		for j := len(w.IDs); j < l; j++ {
			out.InputIDs[row+j] = int64(pad)
		}
	}
	return out
}
