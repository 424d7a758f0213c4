package scheduler

import (
	"context"
	"time"
)

// Observer receives the run's events, for metrics. Methods are called from
// several goroutines and must not block.
type Observer interface {
	// BatchDone: a batch ran on replica in d, with rows windows, tokens
	// real tokens and padded positions in all.
	BatchDone(replica string, rows, tokens, padded int, d time.Duration)
	// Records: a document was written with answers answer records and
	// errors error records.
	Records(answers, errors int)
	// Failure: a batch failed on replica; kind is "out of memory",
	// "fatal" or "error".
	Failure(replica, kind string)
	// Progress, about once a second.
	Progress(Progress)
}

// Progress is the state of a run at one moment.
type Progress struct {
	// Docs are the documents written (resumed ones included) of
	// DocsTotal (0: unknown; an estimate when DocsTotalEstimated).
	Docs, DocsTotal    int64
	DocsTotalEstimated bool
	// Fraction of the work done, in [0, 1], counted in input bytes (see
	// Config.TotalBytes); -1 when unknown.
	Fraction float64
	// ETA is the estimated time to the end; -1 when unknown.
	ETA time.Duration
	// Queue depths: documents in flight, windows waiting to be batched,
	// sorted runs of windows waiting for replicas (each replica's batch is
	// cut from them when it asks).
	DocsInFlight, WindowsPooled, BatchesQueued int
	// State is where the run stands: Running, Stopping (a stop or a drain
	// began; also how a run that ended before its input did, stopped or
	// failed, last reports), or Done (it answered its whole input).
	State State
}

// State is where a run stands (Progress.State).
type State string

// The states of a run.
const (
	Running  State = "running"
	Stopping State = "stopping"
	Done     State = "done"
)

// States are every State, in the order a run passes them.
func States() []State { return []State{Running, Stopping, Done} }

type nopObserver struct{}

func (nopObserver) BatchDone(string, int, int, int, time.Duration) {}
func (nopObserver) Records(int, int)                               {}
func (nopObserver) Failure(string, string)                         {}
func (nopObserver) Progress(Progress)                              {}

// observe reports progress and queue depths to the Observer each second.
func (p *pipeline) observe(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.observeOnce(p.first)
		}
	}
}

func (p *pipeline) observeOnce(first snapshot) {
	now := p.progress.snap()
	inFlight := p.read.next.Load() - p.write.next.Load()
	total, est := p.progress.shownTotal()
	p.cfg.Observer.Progress(Progress{Docs: p.progress.done(), DocsTotal: total, DocsTotalEstimated: est,
		Fraction: p.progress.fraction(now), ETA: p.progress.eta(first, now),
		DocsInFlight: int(max(inFlight, 0)), WindowsPooled: int(p.batch.pooled.Load()), BatchesQueued: int(p.dispatch.queued.Load()),
		State: p.state()})
}

// state is where the run stands for the Observer: Done only once it has
// ended having read and answered all its input.
func (p *pipeline) state() State {
	switch {
	case p.ended.Load() && p.complete.Load():
		return Done
	case p.ended.Load() || p.progress.stopping.Load():
		return Stopping
	}
	return Running
}
