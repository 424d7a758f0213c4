package scheduler

import (
	"context"
	"fmt"
	"math"

	"go.uber.org/zap"

	"qa-shard/internal/errkind"
	"qa-shard/qa"
)

// ErrNonFiniteModel means the model gave NaN or infinite logits on every
// window it ran, each tried twice, before any window gave finite ones: the
// model itself is broken (a float16 export that overflows, say), not one
// input. main refuses it (exit 2).
var ErrNonFiniteModel = errkind.NewUser("the model gives non-finite logits (NaN or infinite) on every window")

// nonFinite marks the rows of a batch that ran whose window's logits
// (its real positions; padding is never read) hold a NaN or an infinity;
// nil when every row is finite.
func nonFinite(b *batch, out qa.Logits) []bool {
	var bad []bool
	for i, ref := range b.refs {
		off, n := i*b.len, ref.window().Len()
		if finite(out.Start[off:off+n]) && finite(out.End[off:off+n]) {
			continue
		}
		if bad == nil {
			bad = make([]bool, len(b.refs))
		}
		bad[i] = true
	}
	return bad
}

func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// sortNonFinite deals with the rows of part whose logits were not finite
// on replica r: a window on its first try goes back to the queue, for
// another replica where there is one (a device fault can cause it); one
// that was tried already becomes an error record for its question, or,
// while no window of the run has given finite logits, refuses the model.
// It returns the batch to requeue, or nil.
func (s *serveStage) sortNonFinite(ctx context.Context, r *replica, part *batch, bad []bool) (*batch, error) {
	var retry []windowRef
	for i, ref := range part.refs {
		if !bad[i] {
			continue
		}
		w := ref.window()
		if ref.nanFrom == "" {
			s.log.Warn("the model gave non-finite logits: trying the window once more", zap.String("replica", r.Name()),
				zap.String("document", ref.doc.doc.Pos.String()), zap.Int("window", ref.w+1), zap.Int("tokens", w.Len()))
			ref.nanFrom = r.Name()
			retry = append(retry, ref)
			continue
		}
		if !s.finiteSeen.Load() {
			return nil, fmt.Errorf("%w so far (window %d of document %d, on replica %s and then %s)", ErrNonFiniteModel, ref.w+1, ref.doc.doc.Seq, ref.nanFrom, r.Name())
		}
		// The record does not name the replicas: it must not depend on
		// which ran it (resumed and uninterrupted runs write the same).
		s.log.Warn("the model gave non-finite logits again: an error record for the question", zap.String("replica", r.Name()),
			zap.String("first_replica", ref.nanFrom), zap.String("document", ref.doc.doc.Pos.String()), zap.Int("window", ref.w+1))
		err := fmt.Errorf("the model gave non-finite logits for window %d of %d (NaN or infinite, on two tries)", ref.w+1, len(ref.doc.questions[ref.q].windows))
		if err := gatherFailed(ctx, ref, err, s.progress, s.done); err != nil {
			return nil, err
		}
	}
	if len(retry) == 0 {
		return nil, nil
	}
	return &batch{refs: retry, len: part.len}, nil
}

// avoids reports whether b is a retry of windows whose logits were not
// finite on r, which another replica should run when one can.
func (b *batch) avoids(r *replica) bool {
	return len(b.refs) > 0 && b.refs[0].nanFrom == r.Name()
}
