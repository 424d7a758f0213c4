package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// grant is the dispatcher's answer to a replica asking for work.
type grant struct {
	b       *batch
	wait    bool // the Shaper does not use this replica now
	stop    bool // no more work for it in this run
	forGood bool // with stop: its layout was set aside (give the session back)
}

// outcome is what a replica reports after each batch it was granted.
type outcome struct {
	r       *replica
	requeue []*batch // work it could not do, for the others
	retired bool     // it failed for good and takes no more work
}

// dispatchStage hands work to replicas as they ask (each replica's feed
// asks for its next batch while the current one runs), cutting each batch
// from the head of the queue at the asking replica's budget, so the
// fastest replica takes the most and each replica class gets its own batch
// shape. It takes back the work of a replica that failed, giving it
// precedence. One goroutine owns its state.
type dispatchStage struct {
	shaper    Shaper // nil: every replica, at maxTokens
	maxTokens int    // Batching.MaxBatchTokens
	cut       cutter
	// dispatched is closed when the stage ends: a feed that asks later
	// gets no work.
	dispatched chan struct{}
	queued     atomic.Int64 // len(queue), for the Observer

	queue    []*batch   // sorted runs; work handed back comes first
	pending  []*replica // replicas that asked for work, in order
	inflight int        // batches granted and not yet reported
	live     int        // replicas that may still take work
	failed   int        // replicas retired after failures
	// anywhere: retries of non-finite windows go to any replica (pick),
	// once every replica able to run them was seen waiting.
	anywhere bool
}

func newDispatchStage(cfg Config, replicas int) *dispatchStage {
	return &dispatchStage{shaper: cfg.Shaper, maxTokens: cfg.MaxBatchTokens,
		cut: cutter{single: cfg.SingleWindowBatches, maxRows: cfg.MaxBatchRows}, dispatched: make(chan struct{}), live: replicas}
}

// run ends when the batcher is done and nothing is queued or running, and
// fails when every replica has been retired with work left.
func (d *dispatchStage) run(ctx context.Context, in <-chan *batch, requests <-chan *replica, outcomes <-chan outcome) error {
	defer d.close()
	for {
		granted := d.grant()
		if in == nil && len(d.queue) == 0 && d.inflight == 0 {
			return nil
		}
		if d.live == 0 {
			if d.failed > 0 {
				return fmt.Errorf("%w (%d windows left)", ErrAllReplicasFailed, d.windows())
			}
			return errors.New("scheduler: the shaper took every replica out of use with work left")
		}
		if len(d.queue) > 0 && d.inflight == 0 && granted == 0 && len(d.pending) == d.live {
			return errors.New("scheduler: every replica waits for the shaper while work is queued")
		}
		d.queued.Store(int64(len(d.queue)))
		recv := in
		if len(d.queue) > 0 {
			recv = nil // keep the queue short: the batcher waits instead
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case b, ok := <-recv:
			if !ok {
				in = nil
				continue
			}
			d.queue = append(d.queue, b)
		case r := <-requests:
			d.pending = append(d.pending, r)
		case o := <-outcomes:
			d.outcome(o)
		}
	}
}

// grant answers every pending request it can and returns how many
// batches it handed out. The Shaper is asked only when there is work, so
// each positive Budget becomes a batch.
func (d *dispatchStage) grant() int {
	n := 0
	keep := d.pending[:0]
	for _, r := range d.pending {
		if r.failed {
			r.reply <- grant{stop: true}
			continue
		}
		i := d.pick(r)
		if i < 0 {
			keep = append(keep, r)
			continue
		}
		switch budget := d.budget(r); {
		case budget < 0:
			r.stopped = true
			d.live--
			r.reply <- grant{stop: true, forGood: true}
		case budget == 0 && r.parked:
			keep = append(keep, r)
		case budget == 0:
			r.parked = true
			r.reply <- grant{wait: true}
		default:
			r.parked = false
			head, rest := d.cut.next(d.queue[i], budget)
			if rest == nil {
				d.queue = slices.Delete(d.queue, i, i+1)
			} else {
				d.queue[i] = rest
			}
			d.inflight++
			n++
			r.reply <- grant{b: head}
		}
	}
	d.pending = keep
	if n == 0 && !d.anywhere && d.inflight == 0 && len(d.pending) == d.live && len(d.queue) > 0 {
		// Every replica that may take work waits: a retry runs where
		// it can rather than not at all.
		d.anywhere = true
		return d.grant()
	}
	return n
}

// pick is the index of the first queued batch r may take, or -1: a
// retry of windows whose logits were not finite on r waits for another
// replica while one may take work.
func (d *dispatchStage) pick(r *replica) int {
	for i, b := range d.queue {
		if d.anywhere || d.live <= 1 || !b.avoids(r) {
			return i
		}
	}
	return -1
}

// outcome takes a replica's report: its batch is no longer in flight,
// what it could not do goes first in the queue, and a failed replica
// leaves the run.
func (d *dispatchStage) outcome(o outcome) {
	d.inflight--
	d.queue = append(o.requeue, d.queue...)
	if o.retired && !o.r.failed {
		o.r.failed = true
		if !o.r.stopped {
			d.live--
			d.failed++
		}
		if d.shaper != nil {
			d.shaper.Retired(o.r.Name())
		}
	}
}

// windows counts the queued windows, for the error when nobody is left.
func (d *dispatchStage) windows() int {
	n := 0
	for _, b := range d.queue {
		n += len(b.refs)
	}
	return n
}

// close tells every waiting replica there is no more work, and any that
// asks later (dispatched).
func (d *dispatchStage) close() {
	for _, r := range d.pending {
		r.reply <- grant{stop: true}
	}
	close(d.dispatched)
}

// budget is the token budget of r's next batch: the Shaper's, never above
// what r's device fits after an out-of-memory error.
func (d *dispatchStage) budget(r *replica) int {
	budget := d.maxTokens
	if d.shaper != nil {
		budget = d.shaper.Budget(r.Name())
	}
	if budget > 0 {
		budget = min(budget, int(r.maxTokens.Load()))
	}
	return budget
}
