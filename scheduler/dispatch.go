package scheduler

import (
	"context"
	"fmt"
)

// outcome is what a replica reports after taking a batch.
type outcome struct {
	requeue []*batch // work it could not do, for the others
	retired bool     // it takes no more work
}

// dispatch hands batches to whichever replica asks first (work is
// unbuffered, so the fastest replica takes the most) and takes back the
// batches of a replica that failed, giving them precedence. It ends when
// the batcher is done and nothing is queued or running, and fails when
// every replica has been retired with work left.
func (p *pipeline) dispatch(ctx context.Context, in <-chan *batch, work chan<- *batch, outcomes <-chan outcome) error {
	defer close(work)
	var queue []*batch
	inflight, alive := 0, len(p.replicas)
	for {
		if in == nil && len(queue) == 0 && inflight == 0 {
			return nil
		}
		if alive == 0 {
			return fmt.Errorf("%w (%d batches left)", ErrAllReplicasFailed, len(queue))
		}
		p.queued.Store(int64(len(queue)))
		var out chan<- *batch
		var next *batch
		if len(queue) > 0 {
			out, next = work, queue[0]
		}
		recv := in
		if len(queue) > 0 {
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
			queue = append(queue, b)
		case out <- next:
			queue = queue[1:]
			inflight++
		case o := <-outcomes:
			inflight--
			queue = append(o.requeue, queue...)
			if o.retired {
				alive--
			}
		}
	}
}
