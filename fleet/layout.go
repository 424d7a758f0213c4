package fleet

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"qa-shard/gpu"
	"qa-shard/internal/isa"
	"qa-shard/tune"
	"qa-shard/worker"
)

// maxCPUSessions bounds the sessions tried on one CPU: each holds its own
// copy of the weights.
const maxCPUSessions = 8

// deviceClass is a set of identical devices with its candidate layouts and
// budgets, before replicas exist.
type deviceClass struct {
	name     string
	device   string // for the cache key
	isa      string // the CPU's instruction set, for the cache key (CPU classes)
	provider string
	devices  []gpu.Device
	layouts  []tune.Layout
	pinned   bool // the flags chose the layout
	budgets  []int
	start    int
}

// planClasses groups the selected devices into classes (the CPU; GPUs of
// one model) and lists what may be measured for each: every candidate
// layout unless --threads, --replicas-per-device or cpu:N pin it, every
// budget unless --max-batch-tokens pins it. The CPU's layouts use this
// rank's share of the node's cores (shareCores).
func planClasses(o Options, sel gpu.Selection) ([]deviceClass, error) {
	if !sel.OnGPU() {
		if o.Provider != "" && o.Provider != worker.ProviderCPU {
			return nil, fmt.Errorf("%w: --provider %s needs a GPU, but --devices selected the CPU", gpu.ErrSelection, o.Provider)
		}
		share := shareCores(runtime.NumCPU(), o.Ranks, os.LookupEnv)
		c := deviceClass{name: "cpu", device: fmt.Sprintf("cpu %s (%d cores)", isa.CPUName(), share.cores), isa: isa.Detect().String(),
			provider: worker.ProviderCPU, devices: sel.Devices, layouts: cpuLayouts(o, len(sel.Devices), share.cores),
			pinned: o.Threads > 0 || o.ReplicasPerDevice > 0 || strings.HasPrefix(strings.TrimSpace(o.Devices), "cpu:")}
		c.budgets, c.start = budgets(o, tune.CPUBudgets)
		if o.Log != nil {
			if share.info != "" {
				o.Log.Info(share.info, share.infoF...)
			}
			for _, w := range []string{share.warn, share.oversubscribed(c)} {
				if w != "" {
					o.Log.Warn(w)
				}
			}
		}
		return []deviceClass{c}, nil
	}
	provider := o.Provider
	if provider == "" {
		provider = worker.ProviderCUDA
	}
	var out []deviceClass
	byModel := map[string]int{}
	for _, d := range sel.Devices {
		i, ok := byModel[d.Model]
		if !ok {
			i = len(out)
			byModel[d.Model] = i
			c := deviceClass{name: fmt.Sprintf("%s (%s)", d.Model, provider), device: d.Model + " " + provider, provider: provider,
				layouts: gpuLayouts(o, provider), pinned: o.ReplicasPerDevice > 0}
			c.budgets, c.start = budgets(o, tune.GPUBudgets)
			out = append(out, c)
		}
		out[i].devices = append(out[i].devices, d)
	}
	return out, nil
}

// cpuLayouts: cpu:N pins N sessions; --threads T gives cores/T sessions;
// --replicas-per-device S gives S sessions. Otherwise one session per core
// (at most maxCPUSessions) first, then halving down to one session of all
// cores.
func cpuLayouts(o Options, devices, cores int) []tune.Layout {
	threads := func(sessions int) int {
		if o.Threads > 0 {
			return o.Threads
		}
		return max(1, cores/sessions)
	}
	switch {
	case devices > 1 || strings.HasPrefix(strings.TrimSpace(o.Devices), "cpu:"):
		return []tune.Layout{{Sessions: 1, Threads: threads(devices)}} // one session per CPU "device"
	case o.ReplicasPerDevice > 0:
		return []tune.Layout{{Sessions: o.ReplicasPerDevice, Threads: threads(o.ReplicasPerDevice)}}
	case o.Threads > 0:
		return []tune.Layout{{Sessions: max(1, cores/o.Threads), Threads: o.Threads}}
	}
	var out []tune.Layout
	for s := min(cores, maxCPUSessions); s >= 1; s /= 2 {
		out = append(out, tune.Layout{Sessions: s, Threads: max(1, cores/s)})
	}
	return out
}

// gpuLayouts: two sessions per GPU (one batch is copied while the other
// computes) or one; pinned by --replicas-per-device, and for TensorRT,
// whose engines take long to build, two.
func gpuLayouts(o Options, provider string) []tune.Layout {
	switch {
	case o.ReplicasPerDevice > 0:
		return []tune.Layout{{Sessions: o.ReplicasPerDevice, Threads: o.Threads}}
	case provider == worker.ProviderTensorRT:
		return []tune.Layout{{Sessions: worker.DefaultSessionsPerGPU, Threads: o.Threads}}
	}
	return []tune.Layout{{Sessions: worker.DefaultSessionsPerGPU, Threads: o.Threads}, {Sessions: 1, Threads: o.Threads}}
}

// budgets: the pinned --max-batch-tokens, or the class's ladder; one
// window's worth when batches are single windows anyway.
func budgets(o Options, ladder func(int) ([]int, int)) ([]int, int) {
	switch {
	case o.SingleWindow:
		return []int{max(8, o.MaxSeqLen)}, 0
	case o.MaxBatchTokens > 0:
		return []int{o.MaxBatchTokens}, 0
	}
	return ladder(max(8, o.MaxSeqLen))
}

// replicaName names session k of layout l on device d, the same in every
// run that uses that layout (whether it was pinned, cached or found by a
// search): a layout's single session keeps the device's name ("cpu:0",
// "gpu3"); several sessions carry their count and number ("cpu:0.2s.1"),
// which tells apart the sessions of every layout a device may measure.
func replicaName(d gpu.Device, l tune.Layout, k int) string {
	if l.Sessions <= 1 {
		return d.Name()
	}
	return fmt.Sprintf("%s.%ds.%d", d.Name(), l.Sessions, k)
}

// replicaLabel names session k of layout l on device d for people: the
// CPU's sessions by number with their threads ("cpu#2 (1 thread)"), a
// GPU's by its index, model and session ("gpu0 H200 #2"; no number for a
// GPU's only session).
func replicaLabel(d gpu.Device, l tune.Layout, k int) string {
	if d.Kind == gpu.KindCPU {
		return fmt.Sprintf("cpu#%d (%d thread%s)", d.Index*l.Sessions+k+1, l.Threads, map[bool]string{true: "s"}[l.Threads != 1])
	}
	s := d.Name()
	if m := strings.TrimSpace(strings.TrimPrefix(d.Model, "NVIDIA ")); m != "" {
		s += " " + m
	}
	if l.Sessions > 1 {
		s += fmt.Sprintf(" #%d", k+1)
	}
	return s
}
