package scheduler

import (
	"context"
	"errors"

	"go.uber.org/zap"
)

// watchStop turns a closed Config.Stop into a drain: no more documents
// are read; those already read are finished and written. ctx is the
// run's (done when the run ends), outer the caller's (cancelled by a
// stop); either way of stopping stops the ETA.
func (p *pipeline) watchStop(outer, ctx context.Context, stopReading func()) {
	select {
	case <-ctx.Done():
		if outer.Err() != nil {
			p.progress.stopping.Store(true)
		}
	case <-p.cfg.Stop:
		p.stopping.Store(true)
		p.progress.stopping.Store(true)
		stopReading()
	}
}

// stopped hides the cancellation a graceful stop causes the reader
// (whether watchStop or the Source saw Stop first).
func (p *pipeline) stopped(err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	select {
	case <-p.cfg.Stop:
		p.stopping.Store(true)
		return nil
	default:
		return err
	}
}

// watchHealth marks replicas whose device was reported unhealthy; they
// retire at their next batch and hand it to the others.
func (p *pipeline) watchHealth(ctx context.Context) {
	if p.cfg.Health == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case name, ok := <-p.cfg.Health:
			if !ok {
				return
			}
			if r := p.byName[name]; r != nil {
				r.unhealthy.Store(true)
				p.cfg.Logger.Error("device unhealthy: replica will retire", zap.String("replica", name))
			}
		}
	}
}
