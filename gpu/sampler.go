package gpu

import (
	"context"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.uber.org/zap"
)

// DefaultSampleInterval is often enough to see a stall in a run watched
// overnight and rare enough to cost nothing (a handful of NVML calls).
const DefaultSampleInterval = 10 * time.Second

// SamplerOptions tune a Sampler; zero values take the defaults.
type SamplerOptions struct {
	Interval time.Duration    // DefaultSampleInterval
	Log      *zap.Logger      // zap.NewNop()
	Now      func() time.Time // time.Now; tests step a fake clock
}

// Sampler polls the GPUs of a selection. Monitoring never fails a run: a
// metric that errors is recorded as unavailable once and not asked again.
type Sampler struct {
	n    *NVML
	opts SamplerOptions

	mu   sync.Mutex
	gpus []*gpuStats
}

// Metric names, as they appear in Sample.Unavailable and the log.
const (
	MetricUtilization  = "utilization"
	MetricMemory       = "memory"
	MetricTemperature  = "temperature"
	MetricPower        = "power"
	MetricClockReasons = "clock_reasons"
	MetricRemappedRows = "remapped_rows"
	MetricRetiredPages = "retired_pages"
	MetricHandle       = "handle"
)

// NewSampler samples each distinct GPU of devices once per tick (MIG
// instances are sampled through their parent: NVML reports utilization per
// GPU). CPU devices are ignored.
func (n *NVML) NewSampler(devices []Device, opts SamplerOptions) *Sampler {
	if opts.Interval <= 0 {
		opts.Interval = DefaultSampleInterval
	}
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Sampler{n: n, opts: opts}
	seen := map[int]bool{}
	for _, d := range devices {
		if d.Kind != KindGPU || seen[d.Index] {
			continue
		}
		seen[d.Index] = true
		uuid := d.UUID
		if d.IsMIG() {
			uuid = d.Parent
		}
		s.gpus = append(s.gpus, newGPUStats(d.Index, uuid))
	}
	return s
}

// Run samples now and then every Interval until ctx ends or the NVML is
// closed (Close waits for Run to return).
func (s *Sampler) Run(ctx context.Context) {
	if !s.n.enter() {
		return
	}
	defer s.n.leave()
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		s.sample(true)
		select {
		case <-ctx.Done():
			return
		case <-s.n.done.Done():
			return
		case <-t.C:
		}
	}
}

// Sample reads every GPU once, records the readings and returns them.
func (s *Sampler) Sample() []Sample {
	if !s.n.enter() {
		return s.sample(false)
	}
	defer s.n.leave()
	return s.sample(true)
}

// sample takes one reading of every GPU; open says the caller holds the
// NVML (enter), else every GPU's handle is unavailable.
func (s *Sampler) sample(open bool) []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Sample, len(s.gpus))
	for i, g := range s.gpus {
		smp := s.read(g, open)
		g.add(smp)
		out[i] = smp
	}
	return out
}

// Latest returns the most recent reading of every GPU (zero Samples before
// the first tick), for the progress line.
func (s *Sampler) Latest() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Sample, len(s.gpus))
	for i, g := range s.gpus {
		out[i] = g.latest
	}
	return out
}

// Summary returns the per-GPU statistics of every sample so far.
func (s *Sampler) Summary() []Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Summary, len(s.gpus))
	for i, g := range s.gpus {
		out[i] = g.summary()
	}
	return out
}

// read takes one reading; s.mu is held.
func (s *Sampler) read(g *gpuStats, open bool) Sample {
	smp := Sample{Index: g.index, UUID: g.uuid, At: s.opts.Now(), UtilPercent: -1, MemUsed: -1, TempC: -1, PowerW: -1}
	h, err := s.n.handle(g.index)
	if !open {
		err = ErrClosed
	}
	if err != nil {
		s.unavailable(g, MetricHandle, err.Error())
		smp.Unavailable = g.unavailableList()
		return smp
	}
	// ask runs one metric unless it already failed once or the driver
	// lacks its function.
	ask := func(metric string, call func() nvml.Return) {
		if g.off[metric] {
			return
		}
		if sym, ok := metricSymbols[metric]; ok && !s.n.has(sym) {
			s.unavailable(g, metric, "the driver's NVML has no "+sym)
			return
		}
		if ret := call(); ret != nvml.SUCCESS {
			s.unavailable(g, metric, ret.Error())
		}
	}
	ask(MetricUtilization, func() nvml.Return {
		u, ret := h.GetUtilizationRates()
		if ret == nvml.SUCCESS {
			smp.UtilPercent = int(u.Gpu)
		}
		return ret
	})
	ask(MetricMemory, func() nvml.Return {
		m, ret := h.GetMemoryInfo()
		if ret == nvml.SUCCESS {
			smp.MemUsed = int64(m.Used)
		}
		return ret
	})
	ask(MetricTemperature, func() nvml.Return {
		t, ret := h.GetTemperature(nvml.TEMPERATURE_GPU)
		if ret == nvml.SUCCESS {
			smp.TempC = int(t)
		}
		return ret
	})
	ask(MetricPower, func() nvml.Return {
		mw, ret := h.GetPowerUsage()
		if ret == nvml.SUCCESS {
			smp.PowerW = float64(mw) / 1000
		}
		return ret
	})
	if !g.off[MetricClockReasons] {
		r, ret, ok := s.n.clockReasons(h)
		switch {
		case !ok:
			s.unavailable(g, MetricClockReasons, "the driver's NVML has neither "+symClockEvents+" nor "+symClockThrottle)
		case ret != nvml.SUCCESS:
			s.unavailable(g, MetricClockReasons, ret.Error())
		default:
			smp.ClockReasons = r
		}
	}
	ask(MetricRemappedRows, func() nvml.Return {
		_, _, pending, failed, ret := h.GetRemappedRows()
		if ret == nvml.SUCCESS {
			smp.RemapPending, smp.RemapFailed = pending, failed
		}
		return ret
	})
	// Retired pages are the pre-Ampere form of row remapping: ask only
	// where remapped rows are not reported.
	if g.off[MetricRemappedRows] {
		ask(MetricRetiredPages, func() nvml.Return {
			st, ret := h.GetRetiredPagesPendingStatus()
			if ret == nvml.SUCCESS {
				smp.RetiredPending = st == nvml.FEATURE_ENABLED
			}
			return ret
		})
	}
	smp.Unavailable = g.unavailableList()
	return smp
}

// unavailable switches a metric off for good and says so once.
func (s *Sampler) unavailable(g *gpuStats, metric, reason string) {
	if g.off[metric] {
		return
	}
	g.off[metric] = true
	g.offOrder = append(g.offOrder, metric)
	s.opts.Log.Info("GPU metric unavailable; not asked again", zap.Int("gpu", g.index),
		zap.String("uuid", g.uuid), zap.String("metric", metric), zap.String("reason", reason))
}
