package sim

import (
	"context"
	"sync"
	"time"

	"qa-shard/qa"
)

// batchOf lays rows out right-padded to the longest one, as the scheduler
// does (pad id 0, mask 0).
func batchOf(rows ...[]int64) qa.Batch {
	l := 0
	for _, r := range rows {
		l = max(l, len(r))
	}
	b := qa.Batch{Rows: len(rows), Len: l,
		InputIDs: make([]int64, len(rows)*l), AttentionMask: make([]int64, len(rows)*l), TypeIDs: make([]int64, len(rows)*l)}
	for i, r := range rows {
		for j, id := range r {
			b.InputIDs[i*l+j] = id
			b.AttentionMask[i*l+j] = 1
		}
	}
	return b
}

// uniform is a batch of rows x l real tokens with distinct ids.
func uniform(rows, l int, first int64) qa.Batch {
	rs := make([][]int64, rows)
	for i := range rs {
		rs[i] = make([]int64, l)
		for j := range rs[i] {
			rs[i][j] = first + int64(i*l+j)
		}
	}
	return batchOf(rs...)
}

// recorder replaces sleeping: it notes the delays asked for and returns at
// once, so tests check the latency model without measuring wall time.
type recorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.delays = append(r.delays, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) last() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.delays) == 0 {
		return -1
	}
	return r.delays[len(r.delays)-1]
}

func newRecorded(opt Options) (*Replica, *recorder) {
	rec := &recorder{}
	opt.Sleep = rec.sleep
	if opt.Name == "" {
		opt.Name = "sim:0"
	}
	return New(opt), rec
}
