package scheduler

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// readStage streams documents from the Source and takes in-flight budget
// for each, so a slow model holds back the reader instead of filling
// memory. It owns what the run knows of its input: whether it was read to
// the end, the error that ended it, and how far it got.
type readStage struct {
	src         Source
	skipBelow   int64 // documents already in the output (resume)
	maxInFlight int64
	inflight    *semaphore.Weighted // released by the writer
	progress    *progress
	hooks       hooks
	flow        *flow

	all  atomic.Bool  // the input was read to its end
	err  error        // the input failed: drained, then returned (read after the stage ends)
	next atomic.Int64 // Seq after the last document read
}

func newReadStage(cfg Config, src Source, prog *progress, f *flow) *readStage {
	return &readStage{src: src, skipBelow: cfg.SkipBelow, maxInFlight: cfg.MaxInFlightBytes,
		inflight: semaphore.NewWeighted(cfg.MaxInFlightBytes), progress: prog, hooks: cfg.hooks, flow: f}
}

func (s *readStage) run(ctx context.Context, docs chan<- *docState) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := s.src.Next()
		if errors.Is(err, io.EOF) {
			s.all.Store(true)
			return nil
		}
		if errors.Is(err, context.Canceled) {
			return err // the input saw the stop first (see pipeline.stopped)
		}
		if err != nil {
			// Corrupt or unreadable input: the documents read before it
			// are finished and written, then Run returns the error.
			s.err = err
			return nil
		}
		if d.Seq < s.skipBelow {
			s.progress.skipped(d.Bytes) // this run's share, done before a resume
			continue
		}
		w := min(docCost(len(d.Context)), s.maxInFlight)
		if ctx.Err() != nil || !s.inflight.TryAcquire(w) { // Acquire's own fast path, then its wait
			s.hooks.budgetWait(true)
			err := s.inflight.Acquire(ctx, w)
			s.hooks.budgetWait(false)
			if err != nil {
				return err
			}
		}
		s.flow.entered() // before the tokenizers can count it done
		select {
		case docs <- &docState{doc: d, weight: w}:
			s.next.Store(d.Seq + 1)
		case <-ctx.Done():
			s.inflight.Release(w)
			return ctx.Err()
		}
	}
}

// docCost estimates the memory a document holds from reading to writing:
// its text, and about 16 bytes of ids, offsets and word ids per token plus
// the windows' copies, at roughly four bytes of English per token.
func docCost(contextBytes int) int64 { return 6*int64(contextBytes) + 2048 }
