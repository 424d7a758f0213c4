package bench

import (
	"context"
	"sync"
	"time"

	"qa-shard/fleet"
	"qa-shard/internal/words"
	"qa-shard/scheduler"
	"qa-shard/tune"
)

// rawShape is one raw-model measurement: a layout of sessions running
// batches of rows full windows, pre-built from random ids.
type rawShape struct {
	layout tune.Layout
	rows   int
}

func (s rawShape) String() string {
	return s.layout.String() + ", " + words.Count(s.rows, "row", "rows")
}

// budget is the token budget that cuts batches of this shape from full
// windows of seqLen tokens.
func (s rawShape) budget(seqLen int) int { return s.rows * seqLen }

// rawShapes are every candidate layout of the fleet's first class with 1,
// 2, 4 and 8 rows (CPU) or the class's own budgets (GPU) of seqLen tokens.
func rawShapes(fl *fleet.Fleet, seqLen int) []rawShape {
	c := fl.Classes[0]
	rows := []int{1, 2, 4, 8}
	if c.Budgets[0] > seqLen { // a GPU ladder: hundreds of rows
		rows = rows[:0]
		for _, b := range c.Budgets {
			rows = append(rows, b/seqLen)
		}
	}
	var out []rawShape
	for _, l := range c.Layouts {
		for _, r := range rows {
			out = append(out, rawShape{l, r})
		}
	}
	return out
}

// rawMinTime is the least time each raw shape runs, so a fast shape is
// measured over more than a few milliseconds.
const rawMinTime = 300 * time.Millisecond

// rawRate runs, on every session of the layout at once and after one
// warm-up batch each, at least n batches of the shape per session and at
// least rawMinTime, and returns tokens/s: the model alone, without
// tokenizing, batching, decoding or writing.
func rawRate(ctx context.Context, fl *fleet.Fleet, s rawShape, seqLen, n int) (float64, error) {
	if err := fl.Open(s.layout.Replicas); err != nil {
		return 0, err
	}
	byName := map[string]scheduler.Replica{}
	for _, r := range fl.Replicas {
		byName[r.Name()] = r
	}
	b := prebuilt([][2]int{{s.rows, seqLen}})[0]
	var wg, warm sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var batches int
	warm.Add(len(s.layout.Replicas))
	begin := make(chan time.Time)
	for _, name := range s.layout.Replicas {
		r := byName[name]
		wg.Go(func() {
			_, err := r.Run(ctx, b)
			warm.Done()
			start := <-begin
			k := 0
			for ; err == nil && (k < n || time.Since(start) < rawMinTime); k++ {
				_, err = r.Run(ctx, b)
			}
			mu.Lock()
			defer mu.Unlock()
			batches += k
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	warm.Wait()
	start := time.Now()
	for range s.layout.Replicas {
		begin <- start
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(batches*s.rows*seqLen) / time.Since(start).Seconds(), nil
}
