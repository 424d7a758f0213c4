package gpu

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.uber.org/zap"
)

// WatchOptions tune WatchHealth; zero values take the defaults.
type WatchOptions struct {
	Log          *zap.Logger   // zap.NewNop()
	PollInterval time.Duration // lost GPU and row-remap polling; DefaultSampleInterval
	// WaitTimeout bounds one nvmlEventSetWait, hence how long the watcher
	// takes to notice the end of the run; 1 s.
	WaitTimeout time.Duration
}

// criticalXids take a GPU out of service: hardware faults (memory,
// NVLink, the bus) after which NVIDIA's Xid catalog asks for a reset.
var criticalXids = map[uint64]string{
	48: "double-bit ECC error",
	63: "ECC page retirement or row remapping event",
	64: "ECC page retirement or row remapping failure",
	74: "NVLink error",
	79: "GPU has fallen off the bus",
	92: "high single-bit ECC error rate",
	94: "contained ECC error",
	95: "uncontained ECC error",
}

// applicationXids come from the program on the GPU (a bad kernel, a page
// fault): the GPU itself is fine, the scheduler retries the batch.
var applicationXids = map[uint64]string{
	13:  "graphics engine exception",
	31:  "GPU memory page fault",
	43:  "GPU stopped processing",
	45:  "preemptive cleanup after previous errors",
	68:  "video processor exception",
	109: "context switch timeout",
}

const watchedEvents = uint64(nvml.EventTypeXidCriticalError | nvml.EventTypeDoubleBitEccError)

type watched struct {
	index    int
	uuid     string      // the GPU's
	units    []Device    // the run's devices on it: the GPU or its MIG instances
	h        nvml.Device // nil when NVML gave no handle at the start
	remapOff bool
}

type watcher struct {
	n    *NVML
	opts WatchOptions
	out  chan Health
	gpus []*watched

	mu       sync.Mutex
	reported map[int]bool
}

// WatchHealth watches the GPUs of devices (MIG instances through their
// parent) until ctx ends or n is closed, then closes the returned channel.
// Critical Xids, double-bit ECC errors, a lost GPU and pending or failed row
// remapping send one Health per device of devices on that GPU, once: the
// GPU itself, or each of its MIG instances (Xid events name the parent GPU).
// Application Xids are logged only. Event registration that fails
// (containers often lack the permission) leaves polling, which always runs;
// nothing here ever fails the run.
func (n *NVML) WatchHealth(ctx context.Context, devices []Device, opts WatchOptions) <-chan Health {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultSampleInterval
	}
	if opts.WaitTimeout <= 0 {
		opts.WaitTimeout = time.Second
	}
	w := &watcher{n: n, opts: opts, reported: map[int]bool{}}
	if !n.enter() {
		w.out = make(chan Health)
		close(w.out)
		return w.out
	}
	byIndex := map[int]*watched{}
	units := 0
	for _, d := range devices {
		if d.Kind != KindGPU {
			continue
		}
		units++
		if g := byIndex[d.Index]; g != nil {
			g.units = append(g.units, d)
			continue
		}
		g := &watched{index: d.Index, uuid: d.UUID, units: []Device{d}}
		if d.IsMIG() {
			g.uuid = d.Parent
		}
		g.h, _ = n.handle(d.Index) // a missing handle is the poller's to report
		byIndex[d.Index] = g
		w.gpus = append(w.gpus, g)
	}
	// One Health per device at most, so sends never wait for the reader.
	w.out = make(chan Health, units)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(n.done, cancel)
	var wg sync.WaitGroup
	if set := w.register(); set != nil {
		wg.Go(func() { w.events(ctx, set) })
	}
	wg.Go(func() { w.poll(ctx) })
	go func() {
		wg.Wait()
		stop()
		cancel()
		close(w.out)
		n.leave()
	}()
	return w.out
}

// register subscribes every GPU that allows it; nil when none does.
func (w *watcher) register() nvml.EventSet {
	if !w.n.has(symEvents...) {
		w.opts.Log.Info("GPU Xid events unavailable (the driver's NVML lacks the event functions); polling only")
		return nil
	}
	set, ret := w.n.lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		w.opts.Log.Info("GPU Xid events unavailable; polling only", zap.String("reason", ret.Error()))
		return nil
	}
	registered := 0
	for _, g := range w.gpus {
		if g.h == nil {
			continue
		}
		mask := watchedEvents
		if sup, ret := g.h.GetSupportedEventTypes(); ret == nvml.SUCCESS {
			mask &= sup
		}
		if mask == 0 {
			w.opts.Log.Info("GPU Xid events not supported; polling it", zap.Int("gpu", g.index))
			continue
		}
		if ret := g.h.RegisterEvents(mask, set); ret != nvml.SUCCESS {
			w.opts.Log.Info("GPU Xid events unavailable; polling it", zap.Int("gpu", g.index), zap.String("reason", ret.Error()))
			continue
		}
		registered++
	}
	if registered == 0 {
		set.Free()
		return nil
	}
	return set
}

// events waits for NVML events until ctx ends. Errors other than a timeout
// are retried after a pause and, if they persist, leave polling alone.
func (w *watcher) events(ctx context.Context, set nvml.EventSet) {
	defer set.Free()
	failures := 0
	for ctx.Err() == nil {
		e, ret := set.Wait(uint32(w.opts.WaitTimeout.Milliseconds()))
		switch ret {
		case nvml.SUCCESS:
			failures = 0
			w.event(ctx, e)
			continue
		case nvml.ERROR_TIMEOUT:
			failures = 0
			continue
		}
		failures++
		if failures == 1 {
			w.opts.Log.Warn("GPU event wait failed; retrying", zap.String("reason", ret.Error()))
		}
		if failures >= 10 {
			w.opts.Log.Warn("GPU events given up; polling continues", zap.String("reason", ret.Error()))
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(w.opts.WaitTimeout):
		}
	}
}

// event classifies one NVML event.
func (w *watcher) event(ctx context.Context, e nvml.EventData) {
	g := w.find(e.Device)
	if e.EventType&nvml.EventTypeDoubleBitEccError != 0 {
		w.unhealthy(ctx, g, Health{Reason: "double-bit ECC error"})
		return
	}
	xid := e.EventData
	if reason, ok := criticalXids[xid]; ok {
		w.unhealthy(ctx, g, Health{Xid: xid, Reason: fmt.Sprintf("Xid %d: %s", xid, reason)})
		return
	}
	reason, ok := applicationXids[xid]
	if !ok {
		reason = "not in the critical list"
	}
	fields := []zap.Field{zap.Uint64("xid", xid), zap.String("reason", reason)}
	if g != nil {
		fields = append(fields, zap.Int("gpu", g.index), zap.String("uuid", g.uuid))
	}
	w.opts.Log.Warn("GPU Xid event (application error; GPU stays in service)", fields...)
}

// find maps an event's device handle to a watched GPU: by handle, then by
// UUID (handles of the real library are plain values, but be safe).
func (w *watcher) find(h nvml.Device) *watched {
	if h == nil {
		return nil
	}
	for _, g := range w.gpus {
		if g.h != nil && g.h == h {
			return g
		}
	}
	if uuid, ret := h.GetUUID(); ret == nvml.SUCCESS {
		for _, g := range w.gpus {
			if g.uuid == uuid {
				return g
			}
		}
	}
	return nil
}

// unhealthy sends h for g once; an event for a GPU outside the run is
// logged only.
func (w *watcher) unhealthy(ctx context.Context, g *watched, h Health) {
	if g == nil {
		w.opts.Log.Warn("critical GPU event on a GPU this run does not use", zap.Uint64("xid", h.Xid), zap.String("reason", h.Reason))
		return
	}
	w.mu.Lock()
	done := w.reported[g.index]
	w.reported[g.index] = true
	w.mu.Unlock()
	w.opts.Log.Error("GPU unhealthy", zap.Int("gpu", g.index), zap.String("uuid", g.uuid), zap.Uint64("xid", h.Xid),
		zap.String("reason", h.Reason), zap.Bool("already_reported", done))
	if done {
		return
	}
	for _, d := range g.units {
		u := h
		u.Index, u.UUID, u.Parent = g.index, d.UUID, d.Parent
		select {
		case w.out <- u:
		case <-ctx.Done():
			return
		}
	}
}
