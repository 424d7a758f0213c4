package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"qa-shard/qa"
)

// Rebuilder is implemented by replicas that can recreate their session
// after a fatal error; the scheduler tries it once before retiring one.
type Rebuilder interface {
	Rebuild() error
}

// runBatch works through b on r. Out of memory: halve the batch and this
// replica's budget. Other errors: halve to isolate the window at fault, and
// a single window that still fails becomes an error record. Fatal: rebuild
// the session once and retry; after that, retire and hand the rest back.
func (p *pipeline) runBatch(ctx context.Context, r *replica, next prepared, decoded chan<- decodeJob) (outcome, error) {
	todo := r.fit(next.b)
	t := tally{whole: len(todo) == 1}
	defer p.ran(r, next.b, &t)
	var retry []*batch // windows whose logits were not finite, to run once more
	for len(todo) > 0 {
		part := todo[0]
		if r.unhealthy.Load() {
			p.log().Warn("retiring replica: device unhealthy", zap.String("replica", r.Name()))
			return outcome{requeue: append(retry, todo...), retired: true}, nil
		}
		in := next.in
		if part != next.b {
			in = part.tensors(p.cfg.PadID)
		}
		out, err := p.runOnce(ctx, r, part, in, &t)
		if err == nil {
			todo = todo[1:]
			bad := nonFinite(part, out)
			if bad == nil || slices.Contains(bad, false) {
				p.finiteSeen.Store(true)
			}
			for i, ref := range part.refs {
				if bad == nil || !bad[i] {
					p.progress.addWork(ref.doc.ranWindow())
				}
			}
			if bad != nil {
				again, err := p.sortNonFinite(ctx, r, part, bad)
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
		p.progress.addFailure(kind)
		p.cfg.Observer.Failure(r.Name(), kind.String())
		p.log().Warn("batch failed", zap.String("replica", r.Name()), zap.String("kind", kind.String()),
			zap.Int("rows", len(part.refs)), zap.Int("len", part.len), zap.Error(err))
		switch {
		case kind == failFatal && !r.rebuilt && r.rebuild(p.log()):
			continue // same part, fresh session
		case kind == failFatal:
			p.log().Error("retiring replica", zap.String("replica", r.Name()), zap.Error(err))
			return outcome{requeue: append(retry, todo...), retired: true}, nil
		case len(part.refs) == 1:
			todo = todo[1:]
			if err := p.failWindow(ctx, part.refs[0], fmt.Errorf("%s on a single window of %d tokens (replica %s): %w", kind, part.refs[0].window().Len(), r.Name(), err), p.done); err != nil {
				return outcome{}, err
			}
		default:
			if kind == failOOM {
				r.maxTokens.Store(int64(max(8, len(part.refs)*part.len/2)))
				if p.cfg.Shaper != nil {
					p.cfg.Shaper.OutOfMemory(r.Name(), len(part.refs)*part.len)
				}
			}
			todo = append(halves(part), todo[1:]...)
		}
	}
	return outcome{requeue: retry}, nil
}

// runOnce runs one batch under the batch timeout and adds it to t.
func (p *pipeline) runOnce(ctx context.Context, r *replica, b *batch, in qa.Batch, t *tally) (qa.Logits, error) {
	limit := p.batchTimeout(r)
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
	p.cfg.Observer.BatchDone(r.Name(), in.Rows, tokens, in.Rows*in.Len, d)
	return out, nil
}

// batchTimeout is --batch-timeout when set; otherwise ten times the
// slowest batch seen on this replica, and never under a minute.
func (p *pipeline) batchTimeout(r *replica) time.Duration {
	if p.cfg.BatchTimeout > 0 {
		return p.cfg.BatchTimeout
	}
	return max(time.Minute, 10*time.Duration(r.slowest.Load()))
}

// fit splits a batch that exceeds this replica's (possibly reduced)
// token budget.
func (r *replica) fit(b *batch) []*batch {
	if len(b.refs) <= 1 || int64(len(b.refs)*b.len) <= r.maxTokens.Load() {
		return []*batch{b}
	}
	return append(r.fit(halves(b)[0]), r.fit(halves(b)[1])...)
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

func (r *replica) rebuild(log *zap.Logger) bool {
	r.rebuilt = true
	rb, ok := r.Replica.(Rebuilder)
	if !ok {
		return false
	}
	if err := rb.Rebuild(); err != nil {
		log.Error("rebuilding replica failed", zap.String("replica", r.Name()), zap.Error(err))
		return false
	}
	log.Warn("replica rebuilt after a fatal error", zap.String("replica", r.Name()))
	return true
}

// deliver decodes every window of a finished batch whose logits are
// finite (the others are retried or failed: sortNonFinite).
func (p *pipeline) deliver(ctx context.Context, j decodeJob, done chan<- *docState) error {
	r, b := j.r, j.b
	windows := len(b.refs)
	for i, ref := range b.refs {
		if j.bad != nil && j.bad[i] {
			windows--
			continue
		}
		d, err := p.decode(ref, j.out, i*b.len)
		if err != nil {
			return fmt.Errorf("replica %s: doc %d (%s): %w", r.Name(), ref.doc.doc.Seq, ref.doc.doc.Pos, err)
		}
		if d != nil {
			if err := send(ctx, done, d); err != nil {
				return err
			}
		}
	}
	p.stats.batches.Add(1)
	p.stats.tokens.Add(int64(realTokens(b)))
	p.stats.padded.Add(int64(len(b.refs) * b.len))
	p.progress.addWindows(r.Name(), windows)
	return nil
}

// decode turns one window's logits into candidates; it returns the
// document when this was its last outstanding window.
func (p *pipeline) decode(ref windowRef, out qa.Logits, off int) (*docState, error) {
	w := ref.window()
	n := w.Len()
	start, end := out.Start[off:off+n:off+n], out.End[off:off+n:off+n]
	qs := &ref.doc.questions[ref.q]
	res, err := qa.DecodeWindow(*w, ref.doc.ctx, p.cfg.Template, start, end, p.cfg.Settings)
	if err != nil {
		return nil, fmt.Errorf("window %d: %w", ref.w, err)
	}
	qs.results[ref.w] = res
	if qs.raw != nil {
		qs.raw[ref.w] = qa.Logits{Start: append([]float32(nil), start...), End: append([]float32(nil), end...)}
	}
	return ref.doc.finishWindow(), nil
}

// failWindow records that one window could not be run: its question gets
// an error record instead of an answer.
func (p *pipeline) failWindow(ctx context.Context, ref windowRef, err error, done chan<- *docState) error {
	ref.doc.fail(ref.q, err)
	p.progress.addWork(ref.doc.ranWindow())
	if d := ref.doc.finishWindow(); d != nil {
		return send(ctx, done, d)
	}
	return nil
}
