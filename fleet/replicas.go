package fleet

import (
	"fmt"
	"slices"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"qa-shard/gpu"
	"qa-shard/tune"
	"qa-shard/worker"
)

// addReplicas makes the replicas of every candidate layout of every
// class, with sessions not opened yet (Open, or a replica's first batch,
// opens them), and the classes the tuner picks among.
func (f *Fleet) addReplicas(o Options, m *worker.Model, classes []deviceClass, log *zap.Logger) {
	f.sessions = map[string]*lazy{}
	for _, c := range classes {
		tc := tune.Class{Name: c.name, Key: tune.Key{Device: c.device, ISA: c.isa, Precision: o.Precision}, PinnedLayout: c.pinned,
			PinnedBudget: o.MaxBatchTokens > 0 && !o.SingleWindow, Budgets: c.budgets, Start: c.start,
			Alternate: c.provider == worker.ProviderCPU}
		for _, l := range c.layouts {
			tl := tune.Layout{Sessions: l.Sessions, Threads: l.Threads} // its own Replicas
			for _, d := range c.devices {
				for k := range l.Sessions {
					name := replicaName(d, l, k)
					opt := worker.ReplicaOptions{Name: name, Provider: c.provider, Threads: l.Threads,
						GPU: gpuOptions(o, d, l.Sessions, c.budgets[len(c.budgets)-1]), Log: log}
					label := replicaLabel(d, l, k)
					r := &lazy{name: name, label: label, model: m, opt: opt, keep: d.Kind == gpu.KindCPU, log: log,
						fields: replicaFields(name, label, c.provider, l, d)}
					f.sessions[name] = r
					f.Replicas = append(f.Replicas, r)
					tl.Replicas = append(tl.Replicas, name)
				}
			}
			tc.Layouts = append(tc.Layouts, tl)
		}
		f.Classes = append(f.Classes, tc)
		f.devices = append(f.devices, classDevices(c))
	}
}

// classDevices names a class's devices for people and the info metric:
// "cpu AMD EPYC (2 cores), AVX-512 VNNI", "2 x NVIDIA H200 cuda".
func classDevices(c deviceClass) string {
	s := c.device
	if c.isa != "" {
		s += ", " + c.isa
	}
	if n := len(c.devices); n > 1 && c.provider != worker.ProviderCPU {
		s = fmt.Sprintf("%d x %s", n, s)
	}
	return s
}

func replicaFields(name, label, provider string, l tune.Layout, d gpu.Device) []zap.Field {
	fields := []zap.Field{zap.String("replica", name), zap.String("name", label), zap.String("provider", provider)}
	if d.Kind == gpu.KindCPU {
		return append(fields, zap.Int("threads", l.Threads))
	}
	return append(fields, zap.Int("nvml_index", d.Index), zap.String("uuid", d.UUID), zap.String("bus_id", d.BusID),
		zap.Int("cuda_device_id", d.DeviceID), zap.String("model", d.Model))
}

// Open opens the sessions of the named replicas now, so that a model or
// library the device cannot run is refused before the run starts (the
// others open when the tuner first uses them). They open concurrently:
// loading and optimizing a model is mostly one core's work per session,
// and a TensorRT engine build takes minutes per GPU. The first error is
// returned once every open has ended. One TensorRT session opens first,
// alone: it builds the engine and writes it to the engine cache, which
// the others then read (concurrent builds would write one file at once).
func (f *Fleet) Open(names []string) error {
	var rs []*lazy
	for _, name := range names {
		if r, ok := f.sessions[name]; ok {
			rs = append(rs, r)
		}
	}
	if i := slices.IndexFunc(rs, func(r *lazy) bool { return r.opt.Provider == worker.ProviderTensorRT }); i >= 0 {
		if _, err := rs[i].open(); err != nil {
			return err
		}
	}
	var g errgroup.Group
	for _, r := range rs {
		g.Go(func() error {
			_, err := r.open()
			return err
		})
	}
	return g.Wait()
}

// Tuner makes the tuner that chooses among the fleet's layouts and
// budgets. model is the model's fingerprint (part of the cache key with
// the device, ONNX Runtime's version and the precision); cache may be nil.
func (f *Fleet) Tuner(model string, cache *tune.Cache, log *zap.Logger) *tune.Tuner {
	classes := slices.Clone(f.Classes)
	for i := range classes {
		classes[i].Key.Model, classes[i].Key.Runtime = model, worker.Version()
	}
	f.tuner = tune.New(tune.Options{Classes: classes, Cache: cache, Logger: log, Share: f.share})
	return f.tuner
}

// Tunable says whether anything is left to measure: a layout or a budget
// the flags did not pin.
func (f *Fleet) Tunable() bool {
	for _, c := range f.Classes {
		if len(c.Layouts) > 1 || len(c.Budgets) > 1 {
			return true
		}
	}
	return false
}

// Choices reports what the tuner chose for each class (none before Tuner).
func (f *Fleet) Choices() []tune.Choice {
	if f.tuner == nil {
		return nil
	}
	return f.tuner.Report()
}
