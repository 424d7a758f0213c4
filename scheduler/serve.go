package scheduler

import (
	"context"
	"fmt"

	"qa-shard/qa"
)

// serve is one replica's loop: pull a batch, run it, decode every window,
// and hand each document whose last window this was to the writer.
func (p *pipeline) serve(ctx context.Context, r Replica, batches <-chan *batch, done chan<- *docState) error {
	for {
		var b *batch
		select {
		case <-ctx.Done():
			return ctx.Err()
		case v, ok := <-batches:
			if !ok {
				return nil
			}
			b = v
		}
		in := b.tensors(p.cfg.PadID)
		out, err := r.Run(ctx, in)
		if err != nil {
			first := b.refs[0].doc.doc
			return fmt.Errorf("replica %s: batch of %d windows (first: doc %d, line %d): %w", r.Name(), len(b.refs), first.Seq, first.Line, err)
		}
		if len(out.Start) != in.Rows*in.Len || len(out.End) != in.Rows*in.Len {
			return fmt.Errorf("replica %s: returned %d/%d logits for a %dx%d batch", r.Name(), len(out.Start), len(out.End), in.Rows, in.Len)
		}
		var real int64
		for i, ref := range b.refs {
			real += int64(ref.window().Len())
			d, err := p.decode(ref, out, i*in.Len)
			if err != nil {
				return fmt.Errorf("replica %s: doc %d (line %d): %w", r.Name(), ref.doc.doc.Seq, ref.doc.doc.Line, err)
			}
			if d != nil {
				if err := send(ctx, done, d); err != nil {
					return err
				}
			}
		}
		p.stats.batches.Add(1)
		p.stats.windows.Add(int64(len(b.refs)))
		p.stats.tokens.Add(real)
		p.stats.padded.Add(int64(in.Rows * in.Len))
		p.progress.addWindows(r.Name(), len(b.refs))
	}
}

// decode turns one window's logits into candidates; it returns the
// document when this was its last outstanding window.
func (p *pipeline) decode(ref windowRef, out qa.Logits, off int) (*docState, error) {
	w := ref.window()
	n := w.Len()
	start, end := out.Start[off:off+n:off+n], out.End[off:off+n:off+n]
	qs := &ref.doc.questions[ref.q]
	res, err := qa.DecodeWindow(*w, ref.doc.ctx, p.cfg.Special, start, end, p.cfg.Settings)
	if err != nil {
		return nil, fmt.Errorf("window %d: %w", ref.w, err)
	}
	qs.results[ref.w] = res
	if qs.raw != nil {
		qs.raw[ref.w] = qa.Logits{Start: append([]float32(nil), start...), End: append([]float32(nil), end...)}
	}
	if ref.doc.pending.Add(-1) == 0 {
		return ref.doc, nil
	}
	return nil, nil
}
