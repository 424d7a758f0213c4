package bench

import (
	"context"
	"slices"
	"sync"
	"time"

	"qa-shard/qa"
	"qa-shard/worker/sim"
)

// schedProbe wraps a simulated replica to time its batches and, for the
// single-replica run, keep every batch for the static replays (the
// scheduler builds fresh tensors per batch, so keeping them is safe). The
// scheduler calls it from one goroutine, so its timing needs no lock.
type schedProbe struct {
	*sim.Replica
	rec         *schedRecorder
	first, last time.Time
	between     time.Duration
	gaps        []time.Duration // from each batch's return to the next call
	batches     int
}

type schedRecorder struct {
	mu      sync.Mutex
	batches []qa.Batch
}

func (r *schedProbe) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	start := time.Now()
	if r.batches == 0 {
		r.first = start
	} else {
		r.between += start.Sub(r.last)
		r.gaps = append(r.gaps, start.Sub(r.last))
	}
	out, err := r.Replica.Run(ctx, b)
	r.last = time.Now()
	r.batches++
	if err == nil && r.rec != nil {
		r.rec.mu.Lock()
		r.rec.batches = append(r.rec.batches, b)
		r.rec.mu.Unlock()
	}
	return out, err
}

func schedIdleOf(probes []*schedProbe, start, end time.Time) schedIdle {
	var id schedIdle
	var gaps []time.Duration
	n := 0
	for _, p := range probes {
		if p.batches == 0 {
			continue
		}
		gaps = append(gaps, p.gaps...)
		n++
		id.first += p.first.Sub(start)
		id.between += p.between
		id.tail += end.Sub(p.last)
		id.batches += float64(p.batches)
	}
	if n > 0 {
		id.first /= time.Duration(n)
		id.between /= time.Duration(n)
		id.tail /= time.Duration(n)
		id.batches /= float64(n)
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		id.gap50, id.gap90 = gaps[len(gaps)/2], gaps[len(gaps)*9/10]
	}
	return id
}
