package scheduler

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"qa-shard/qa"
)

// serveStage runs batches on the replicas: for each replica a feed that
// asks the dispatcher for work and builds its tensors one batch ahead, and
// a server that runs them back to back and deals with what fails (out of
// memory, timeouts, fatal errors, non-finite logits). It owns what the run
// has learnt of the model: whether any window gave finite logits.
type serveStage struct {
	padID    int32
	timeout  time.Duration // Faults.BatchTimeout (0: from the slowest batch)
	shaper   Shaper        // nil: none to tell
	observer Observer
	progress *progress
	log      *zap.Logger
	hooks    hooks
	// dispatched is the dispatcher's: closed when it ends.
	dispatched <-chan struct{}
	// done takes documents whose last window failed here.
	done chan<- *docState
	// finiteSeen: some window gave finite logits, so the model works and
	// a window whose logits are not finite is that window's problem.
	finiteSeen atomic.Bool
}

func newServeStage(cfg Config, prog *progress, dispatched <-chan struct{}, done chan<- *docState) *serveStage {
	return &serveStage{padID: cfg.PadID, timeout: cfg.BatchTimeout, shaper: cfg.Shaper, observer: cfg.Observer,
		progress: prog, log: cfg.Logger, hooks: cfg.hooks, dispatched: dispatched, done: done}
}

// feed asks the dispatcher for r's next batch and builds its tensors, so
// they are ready when the batch before it returns. ready holds no buffer:
// the feed works one batch ahead, no more.
func (s *serveStage) feed(ctx context.Context, r *replica, requests chan<- *replica) error {
	defer close(r.ready)
	for {
		if err := send(ctx, requests, r); err != nil {
			return err
		}
		var g grant
		select {
		case g = <-r.reply:
		case <-s.dispatched:
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
			next = prepared{b: g.b, in: g.b.tensors(s.padID)}
			s.hooks.prepared(r.Name(), next.in)
		}
		if err := send(ctx, r.ready, next); err != nil {
			return err
		}
	}
}

// serve runs r's batches as they come ready, on one OS thread: ONNX
// Runtime's CUDA provider keeps per-thread state. Between two batches it
// only hands the logits on and takes the next prepared batch.
func (s *serveStage) serve(ctx context.Context, r *replica, outcomes chan<- outcome, decoded chan<- decodeJob) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for next := range r.ready {
		if next.b == nil {
			r.Idle(next.forGood) // the Shaper does not use r now
			continue
		}
		o, err := s.runBatch(ctx, r, next, decoded)
		if err != nil {
			return err
		}
		o.r = r
		if err := send(ctx, outcomes, o); err != nil {
			return err
		}
		if o.retired {
			return s.handBack(ctx, r, outcomes)
		}
	}
	return nil
}

// handBack returns what a retired replica's feed had prepared.
func (s *serveStage) handBack(ctx context.Context, r *replica, outcomes chan<- outcome) error {
	for next := range r.ready {
		if next.b != nil {
			if err := send(ctx, outcomes, outcome{r: r, requeue: []*batch{next.b}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// runBatch works through b on r. Out of memory: halve the batch and this
// replica's budget. Other errors: halve to isolate the window at fault, and
// a single window that still fails becomes an error record. Fatal: rebuild
// the session once and retry; after that, retire and hand the rest back.
func (s *serveStage) runBatch(ctx context.Context, r *replica, next prepared, decoded chan<- decodeJob) (outcome, error) {
	todo := r.fit(next.b)
	t := tally{whole: len(todo) == 1}
	defer s.ran(r, next.b, &t)
	var retry []*batch // windows whose logits were not finite, to run once more
	for len(todo) > 0 {
		part := todo[0]
		if r.unhealthy.Load() {
			s.log.Warn("retiring replica: device unhealthy", zap.String("replica", r.Name()))
			return outcome{requeue: append(retry, todo...), retired: true}, nil
		}
		in := next.in
		if part != next.b {
			in = part.tensors(s.padID)
		}
		out, err := s.runOnce(ctx, r, part, in, &t)
		if err == nil {
			todo = todo[1:]
			bad := nonFinite(part, out)
			if bad == nil || slices.Contains(bad, false) {
				s.finiteSeen.Store(true)
			}
			for i, ref := range part.refs {
				if bad == nil || !bad[i] {
					s.progress.addWork(ref.doc.ranWindow())
				}
			}
			if bad != nil {
				again, err := s.sortNonFinite(ctx, r, part, bad)
				if err != nil {
					return outcome{}, err
				}
				if again != nil {
					retry = append(retry, again)
				}
			}
			if err := send(ctx, decoded, decodeJob{r: r, b: part, out: out, bad: bad}); err != nil {
				return outcome{}, err
			}
			continue
		}
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		kind := classify(err)
		t.whole = false
		s.progress.addFailure(kind)
		s.observer.Failure(r.Name(), kind.String())
		s.log.Warn("batch failed", zap.String("replica", r.Name()), zap.String("kind", kind.String()),
			zap.Int("rows", len(part.refs)), zap.Int("len", part.len), zap.Error(err))
		switch {
		case kind == failFatal && !r.rebuilt && r.rebuild(s.log):
			continue // same part, fresh session
		case kind == failFatal:
			s.log.Error("retiring replica", zap.String("replica", r.Name()), zap.Error(err))
			return outcome{requeue: append(retry, todo...), retired: true}, nil
		case len(part.refs) == 1:
			todo = todo[1:]
			err := fmt.Errorf("%s on a single window of %d tokens (replica %s): %w", kind, part.refs[0].window().Len(), r.Name(), err)
			if err := gatherFailed(ctx, part.refs[0], err, s.progress, s.done); err != nil {
				return outcome{}, err
			}
		default:
			if kind == failOOM {
				r.maxTokens.Store(int64(max(8, len(part.refs)*part.len/2)))
				if s.shaper != nil {
					s.shaper.OutOfMemory(r.Name(), len(part.refs)*part.len)
				}
			}
			todo = append(halves(part), todo[1:]...)
		}
	}
	return outcome{requeue: retry}, nil
}

// runOnce runs one batch under the batch timeout and adds it to t.
func (s *serveStage) runOnce(ctx context.Context, r *replica, b *batch, in qa.Batch, t *tally) (qa.Logits, error) {
	limit := s.batchTimeout(r)
	rctx, cancel := context.WithTimeoutCause(ctx, limit, ErrBatchTimeout)
	defer cancel()
	start := time.Now()
	out, err := r.Run(rctx, in)
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(rctx), ErrBatchTimeout) {
			return out, fmt.Errorf("%w after %s: %w", ErrBatchTimeout, limit, err)
		}
		return out, err
	}
	if len(out.Start) != in.Rows*in.Len || len(out.End) != in.Rows*in.Len {
		return out, fmt.Errorf("replica %s: returned %d/%d logits for a %dx%d batch", r.Name(), len(out.Start), len(out.End), in.Rows, in.Len)
	}
	d := time.Since(start)
	if int64(d) > r.slowest.Load() {
		r.slowest.Store(int64(d))
	}
	tokens := realTokens(b)
	t.add(r, tokens, in.Rows*in.Len, d)
	s.observer.BatchDone(r.Name(), in.Rows, tokens, in.Rows*in.Len, d)
	return out, nil
}

// batchTimeout is --batch-timeout when set; otherwise ten times the
// slowest batch seen on this replica, and never under a minute.
func (s *serveStage) batchTimeout(r *replica) time.Duration {
	if s.timeout > 0 {
		return s.timeout
	}
	return max(time.Minute, 10*time.Duration(r.slowest.Load()))
}

func realTokens(b *batch) int {
	n := 0
	for _, r := range b.refs {
		n += r.window().Len()
	}
	return n
}

func halves(b *batch) []*batch {
	mid := len(b.refs) / 2
	return []*batch{{refs: b.refs[:mid], len: b.len}, {refs: b.refs[mid:], len: b.len}}
}
