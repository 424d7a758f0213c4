package scheduler

import (
	"context"
	"slices"
	"time"

	"qa-shard/qa"
)

// batch is a set of windows cut from the pool, padded to Len.
type batch struct {
	refs []windowRef
	len  int
}

// idleFlush is how long the batcher waits for more windows before it cuts
// what it has; it keeps replicas busy when the reader is slow or the
// in-flight budget is exhausted.
const idleFlush = 20 * time.Millisecond

// batch pools windows from many documents, sorts the pool by length and
// cuts it into batches under the token budget, so windows of similar
// length share a batch and little is padding.
func (p *pipeline) batch(ctx context.Context, in <-chan windowRef, out chan<- *batch) error {
	var pool []windowRef
	poolTokens := 0
	timer := time.NewTimer(idleFlush)
	defer timer.Stop()
	flush := func() error {
		for _, b := range p.cutPool(pool) {
			if err := send(ctx, out, b); err != nil {
				return err
			}
		}
		pool, poolTokens = pool[:0], 0
		p.pooled.Store(0)
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
			p.pooled.Store(int64(len(pool)))
			if poolTokens >= p.cfg.PoolTokens || p.cfg.SingleWindowBatches {
				if err := flush(); err != nil {
					return err
				}
			}
			timer.Reset(idleFlush)
		case <-timer.C:
			if err := flush(); err != nil {
				return err
			}
			timer.Reset(idleFlush)
		}
	}
}

// cutPool cuts the pool into the batches the configuration asks for.
func (p *pipeline) cutPool(pool []windowRef) []*batch {
	if p.cfg.SingleWindowBatches {
		return singles(pool)
	}
	return cutBatches(pool, p.cfg.MaxBatchTokens, p.cfg.MaxBatchRows)
}

// singles makes one batch of each window, in pool order, at the window's
// own length: no neighbour and no padding can change its logits.
func singles(pool []windowRef) []*batch {
	out := make([]*batch, len(pool))
	for i, r := range pool {
		out[i] = &batch{refs: []windowRef{r}, len: r.window().Len()}
	}
	return out
}

// cutBatches sorts windows by length (stable, so document order breaks
// ties) and cuts them greedily: a batch grows while rows times its padded
// length stays within maxTokens and rows within maxRows (0: no limit). A
// window longer than the budget still runs, alone.
func cutBatches(pool []windowRef, maxTokens, maxRows int) []*batch {
	if len(pool) == 0 {
		return nil
	}
	sorted := slices.Clone(pool)
	slices.SortStableFunc(sorted, func(a, b windowRef) int { return a.window().Len() - b.window().Len() })
	var out []*batch
	cur := &batch{}
	for _, r := range sorted {
		l := padTo8(r.window().Len())
		full := (len(cur.refs)+1)*l > maxTokens || (maxRows > 0 && len(cur.refs) >= maxRows)
		if len(cur.refs) > 0 && full {
			out = append(out, cur)
			cur = &batch{}
		}
		cur.refs = append(cur.refs, r)
		cur.len = l
	}
	return append(out, cur)
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
