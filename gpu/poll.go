package gpu

import (
	"context"
	"errors"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// poll checks for lost GPUs and row remapping every PollInterval.
func (w *watcher) poll(ctx context.Context) {
	t := time.NewTicker(w.opts.PollInterval)
	defer t.Stop()
	for {
		for _, g := range w.gpus {
			w.pollOne(ctx, g)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (w *watcher) pollOne(ctx context.Context, g *watched) {
	if w.isReported(g.index) {
		return
	}
	lost := Health{Reason: "GPU is lost (ERROR_GPU_IS_LOST)"}
	h := g.h
	if h == nil {
		var err error
		if h, err = w.n.handle(g.index); err != nil {
			if errors.Is(err, nvml.ERROR_GPU_IS_LOST) {
				w.unhealthy(ctx, g, lost)
			}
			return
		}
	}
	if _, ret := h.GetPciInfo(); ret == nvml.ERROR_GPU_IS_LOST {
		w.unhealthy(ctx, g, lost)
		return
	}
	if g.remapOff || !w.n.has(symRemappedRows) {
		return
	}
	_, _, pending, failed, ret := h.GetRemappedRows()
	switch {
	case ret == nvml.ERROR_GPU_IS_LOST:
		w.unhealthy(ctx, g, lost)
	case ret != nvml.SUCCESS:
		g.remapOff = true // pre-Ampere or no permission: nothing to poll
	case failed:
		w.unhealthy(ctx, g, Health{Reason: "row remapping failed: uncorrectable memory errors could not be remapped"})
	case pending:
		w.unhealthy(ctx, g, Health{Reason: "row remapping pending: an uncorrectable memory error needs a GPU reset"})
	}
}

func (w *watcher) isReported(index int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reported[index]
}
