package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"

	"qa-shard/qa"
)

// decodeJob is a batch that ran, for the decoders.
type decodeJob struct {
	r   *replica
	b   *batch
	out qa.Logits
	bad []bool // rows whose logits were not finite: not decoded (nil: none)
}

// decodeStage turns the logits of finished batches into window results,
// off the replicas' goroutines (several decoders run it), and counts what
// ran for the summary.
type decodeStage struct {
	template qa.Template
	progress *progress
	hooks    hooks

	tokens, padded, batches atomic.Int64 // windows are counted by progress
}

func newDecodeStage(cfg Config, prog *progress) *decodeStage {
	return &decodeStage{template: cfg.Template, progress: prog, hooks: cfg.hooks}
}

// run is one decoder: it ends when jobs is closed.
func (s *decodeStage) run(ctx context.Context, jobs <-chan decodeJob, done chan<- *docState) error {
	for j := range jobs {
		s.hooks.decode(j.r.Name(), len(j.b.refs))
		if err := s.deliver(ctx, j, done); err != nil {
			return err
		}
	}
	return nil
}

// deliver decodes every window of a finished batch whose logits are
// finite (the others are retried or failed: serveStage.sortNonFinite).
func (s *decodeStage) deliver(ctx context.Context, j decodeJob, done chan<- *docState) error {
	r, b := j.r, j.b
	windows := len(b.refs)
	for i, ref := range b.refs {
		if j.bad != nil && j.bad[i] {
			windows--
			continue
		}
		d, err := s.decode(ref, j.out, i*b.len)
		if err != nil {
			return fmt.Errorf("replica %s: doc %d (%s): %w", r.Name(), ref.doc.doc.Seq, ref.doc.doc.Pos, err)
		}
		if d != nil {
			if err := send(ctx, done, d); err != nil {
				return err
			}
		}
	}
	s.batches.Add(1)
	s.tokens.Add(int64(realTokens(b)))
	s.padded.Add(int64(len(b.refs) * b.len))
	s.progress.addWindows(r.Name(), windows)
	return nil
}

// decode turns one window's logits into candidates; it returns the
// document when this was its last outstanding window.
func (s *decodeStage) decode(ref windowRef, out qa.Logits, off int) (*docState, error) {
	w := ref.window()
	n := w.Len()
	start, end := out.Start[off:off+n:off+n], out.End[off:off+n:off+n]
	qs := &ref.doc.questions[ref.q]
	res, err := qa.DecodeWindow(*w, ref.doc.ctx, s.template, start, end, ref.doc.settings)
	if err != nil {
		return nil, fmt.Errorf("window %d: %w", ref.w, err)
	}
	qs.results[ref.w] = res
	if qs.raw != nil {
		qs.raw[ref.w] = qa.Logits{Start: append([]float32(nil), start...), End: append([]float32(nil), end...)}
	}
	return ref.doc.finishWindow(), nil
}
