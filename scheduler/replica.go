package scheduler

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"qa-shard/qa"
)

// replica is the scheduler's view of one replica during a run. Each has
// two goroutines: its feed asks for the next batch and builds its tensors
// while the current one runs, and serve runs batches back to back on one
// locked OS thread, handing the logits to the decoders.
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

// decodeJob is a batch that ran, for the decoders.
type decodeJob struct {
	r   *replica
	b   *batch
	out qa.Logits
	bad []bool // rows whose logits were not finite: not decoded (nil: none)
}

// startReplicas starts the dispatcher, each replica's feed and serve
// goroutines, and the decoders, in one group: when one fails, all stop.
// The decoders end once every replica has stopped handing them batches.
func (p *pipeline) startReplicas(ctx context.Context, batches <-chan *batch, done chan<- *docState) *errgroup.Group {
	workers, ctx := errgroup.WithContext(ctx)
	n := len(p.reps)
	requests := make(chan *replica, n) // one request per replica at most
	outcomes := make(chan outcome, 2*n)
	decoded := make(chan decodeJob, 2*n)
	workers.Go(func() error { return p.dispatch(ctx, batches, requests, outcomes) })
	var serving sync.WaitGroup
	for _, r := range p.reps {
		serving.Add(1)
		workers.Go(func() error { return p.feed(ctx, r, requests) })
		workers.Go(func() error { defer serving.Done(); return p.serve(ctx, r, outcomes, decoded) })
	}
	workers.Go(func() error { serving.Wait(); close(decoded); return nil })
	for range max(2, runtime.GOMAXPROCS(0)) {
		workers.Go(func() error { return p.decodeLoop(ctx, decoded, done) })
	}
	return workers
}

// feed asks the dispatcher for r's next batch and builds its tensors, so
// they are ready when the batch before it returns. ready holds no buffer:
// the feed works one batch ahead, no more.
func (p *pipeline) feed(ctx context.Context, r *replica, requests chan<- *replica) error {
	defer close(r.ready)
	for {
		if err := send(ctx, requests, r); err != nil {
			return err
		}
		var g grant
		select {
		case g = <-r.reply:
		case <-p.dispatched:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
		var next prepared
		switch {
		case g.stop && g.forGood:
			return send(ctx, r.ready, prepared{forGood: true})
		case g.stop:
			return nil
		case !g.wait:
			next = prepared{b: g.b, in: g.b.tensors(p.cfg.PadID)}
			p.cfg.hooks.prepared(r.Name(), next.in)
		}
		if err := send(ctx, r.ready, next); err != nil {
			return err
		}
	}
}

// serve runs r's batches as they come ready, on one OS thread: ONNX
// Runtime's CUDA provider keeps per-thread state. Between two batches it
// only hands the logits on and takes the next prepared batch.
func (p *pipeline) serve(ctx context.Context, r *replica, outcomes chan<- outcome, decoded chan<- decodeJob) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for next := range r.ready {
		if next.b == nil {
			r.idle(next.forGood)
			continue
		}
		o, err := p.runBatch(ctx, r, next, decoded)
		if err != nil {
			return err
		}
		o.r = r
		if err := send(ctx, outcomes, o); err != nil {
			return err
		}
		if o.retired {
			return p.handBack(ctx, r, outcomes)
		}
	}
	return nil
}

// handBack returns what a retired replica's feed had prepared.
func (p *pipeline) handBack(ctx context.Context, r *replica, outcomes chan<- outcome) error {
	for next := range r.ready {
		if next.b != nil {
			if err := send(ctx, outcomes, outcome{r: r, requeue: []*batch{next.b}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeLoop turns the logits of finished batches into window results, off
// the replicas' goroutines.
func (p *pipeline) decodeLoop(ctx context.Context, jobs <-chan decodeJob, done chan<- *docState) error {
	for j := range jobs {
		p.cfg.hooks.decode(j.r.Name(), len(j.b.refs))
		if err := p.deliver(ctx, j, done); err != nil {
			return err
		}
	}
	return nil
}

// hooks let tests observe the order of events; nil fields cost nothing.
type hooks struct {
	onPrepared func(replica string, b qa.Batch) // a batch's tensors are built
	onDecode   func(replica string, rows int)   // a batch is about to be decoded
	// onBudgetWait: the reader must wait for in-flight budget (true, just
	// before it blocks), then has it or gives up (false).
	onBudgetWait func(waiting bool)
}

func (h hooks) prepared(replica string, b qa.Batch) {
	if h.onPrepared != nil {
		h.onPrepared(replica, b)
	}
}

func (h hooks) decode(replica string, rows int) {
	if h.onDecode != nil {
		h.onDecode(replica, rows)
	}
}

func (h hooks) budgetWait(waiting bool) {
	if h.onBudgetWait != nil {
		h.onBudgetWait(waiting)
	}
}
