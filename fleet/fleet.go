// Package fleet builds the replicas of a run: on the devices gpu.Select
// makes of --devices (NVML, CUDA_VISIBLE_DEVICES; Slurm's tasks per node
// share the GPUs here), one ONNX Runtime session per replica of every
// candidate layout, and the watchers of the GPUs (telemetry sampler, Xid
// health watcher). "sim:..." device specs give the simulated replicas
// Options.Simulate builds instead, for tests and the scheduling benchmark.
package fleet

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"qa-shard/gpu"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/tune"
	"qa-shard/worker"
)

// The program's replicas are lazy sessions, and its Shaper is the tuner.
var (
	_ scheduler.Replica = (*lazy)(nil)
	_ scheduler.Shaper  = (*tune.Tuner)(nil)
)

// Options say where replicas run and how each session is set up.
type Options struct {
	Devices           string  // the --devices value; "sim:..." for simulated replicas
	Provider          string  // worker.ProviderCUDA (default on GPUs), ProviderTensorRT, or ProviderCPU
	ReplicasPerDevice int     // sessions per device; 0: measured (GPUs: 2 or 1; CPU: sessions x threads)
	Threads           int     // intra-op threads per session; 0: on the CPU, the cores divided among the sessions
	FP16              bool    // TensorRT float16 engines
	GPUMemFraction    float64 // CUDA arena limit as a fraction of each GPU's memory; 0: none
	TRTCacheDir       string  // TensorRT engine cache; one subfolder per GPU model
	MaxSeqLen         int     // longest window, for TensorRT's profile
	MaxBatchTokens    int     // the token budget per batch; 0: measured (tune)
	SingleWindow      bool    // every batch is one window (int8 models): no budget to measure
	Precision         string  // fp32, fp16 or int8: part of the tuning cache key
	SampleInterval    time.Duration
	TuneShare         float64     // share of the run the shape search may take (tune.Options.Share); 0: the default
	Ranks             int         // the job's world size: CPU ranks sharing a node split its cores (shareCores)
	Log               *zap.Logger // nil: no logging
	// Simulate builds the replicas of a "sim:..." Devices spec (nil: such
	// a spec is refused).
	Simulate Simulator
}

// Fleet is the set of replicas of a run and what watches their devices.
// Replicas holds every candidate layout's replicas; Classes says which
// make up which layout, for the tuner (Tuner) that picks among them.
type Fleet struct {
	Replicas []scheduler.Replica
	Classes  []tune.Class
	Health   <-chan string // replica names whose device became unhealthy
	Status   func() string // GPU telemetry for the progress line; nil without GPUs
	Samples  func() []gpu.Sample
	Summary  func() []gpu.Summary // per GPU over the run; nil without GPUs
	close    func()
	sessions map[string]*lazy
	tuner    *tune.Tuner
	share    float64  // Options.TuneShare
	devices  []string // per class, its devices for people (Devices)
}

// Devices names the run's devices, one class after another: "cpu AMD EPYC
// (2 cores), AVX-512 VNNI", "2 x NVIDIA H200 cuda", or the simulated ones.
func (f *Fleet) Devices() string { return strings.Join(f.devices, "; ") }

// Close releases the sessions and stops the watchers.
func (f *Fleet) Close() { f.close() }

// selectDevices resolves --devices with NVML (where a driver exists) and
// CUDA_VISIBLE_DEVICES, and exports the CUDA environment before ONNX
// Runtime touches CUDA.
func selectDevices(spec string, log *zap.Logger) (gpu.Selection, nvmlSession, error) {
	n, nerr := openNVML()
	var found []gpu.Device
	if nerr == nil {
		found, nerr = n.Devices()
	}
	sel, err := gpu.Select(spec, found, nerr, os.LookupEnv)
	if err == nil && sel.OnGPU() && (spec == "" || spec == "all") {
		sel, err = slurmLocalShare(sel, found, nerr, log)
	}
	if err != nil {
		if n != nil {
			n.Close()
		}
		return sel, nil, err
	}
	for _, w := range sel.Warnings {
		log.Warn(w)
	}
	if err := sel.Apply(os.Setenv); err != nil {
		n.Close()
		return sel, nil, fmt.Errorf("setting the CUDA environment: %w", err)
	}
	return sel, n, nil
}

// slurmLocalShare: when Slurm starts several tasks on a node without
// binding GPUs to tasks, every task sees every GPU; task SLURM_LOCALID
// then takes every n-th GPU, so tasks do not land on each other's GPUs
// (the count of tasks on the node: shard.DetectLocal).
func slurmLocalShare(sel gpu.Selection, found []gpu.Device, nerr error, log *zap.Logger) (gpu.Selection, error) {
	l, ok, err := shard.DetectLocal(os.LookupEnv)
	local, n := l.Rank, l.Ranks
	if err != nil || !ok || !strings.HasPrefix(l.Source, "SLURM") || n <= 1 || len(sel.Devices) < n {
		return sel, nil
	}
	var mine []string
	for i, d := range sel.Devices {
		if i%n == local {
			mine = append(mine, d.UUID)
		}
	}
	log.Info("sharing the node's GPUs among Slurm tasks", zap.Int("local_task", local), zap.Int("tasks_per_node", n), zap.Strings("gpus", mine))
	return gpu.Select(strings.Join(mine, ","), found, nerr, os.LookupEnv)
}

// Start creates the replicas: simulated ones for "sim:..." (tests and
// scheduler benchmarks), else one replica per session of every candidate
// layout on the selected devices; the sessions open when first needed
// (Open opens those the run starts with).
func Start(ctx context.Context, o Options, m *worker.Model) (*Fleet, error) {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	log := o.Log
	if gpu.Simulated(o.Devices) {
		reps, err := o.simulated(o.Devices)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", gpu.ErrSelection, err)
		}
		f := &Fleet{close: func() {}, share: o.TuneShare, devices: []string{o.Devices}}
		l := tune.Layout{Sessions: len(reps)}
		for _, r := range reps {
			f.Replicas = append(f.Replicas, r)
			l.Replicas = append(l.Replicas, r.Name())
		}
		c := tune.Class{Name: "sim", Key: tune.Key{Device: "sim " + o.Devices, Precision: o.Precision}, Layouts: []tune.Layout{l},
			PinnedBudget: o.MaxBatchTokens > 0 && !o.SingleWindow}
		c.Budgets, c.Start = budgets(o, tune.CPUBudgets)
		f.Classes = []tune.Class{c}
		log.Warn("simulated replicas: no model runs", zap.Int("replicas", len(reps)))
		return f, nil
	}
	sel, n, err := selectDevices(o.Devices, log)
	if err != nil {
		return nil, err
	}
	f := &Fleet{close: func() {}, share: o.TuneShare}
	if n != nil {
		f.close = func() { n.Close() }
	}
	classes, err := planClasses(o, sel)
	if err != nil {
		f.close()
		return nil, err
	}
	f.addReplicas(o, m, classes, log)
	closeNVML := f.close
	f.close = func() {
		for _, r := range f.sessions {
			r.Close()
		}
		closeNVML()
	}
	if sel.OnGPU() && n != nil {
		f.watch(ctx, n, sel.Devices, o, log)
	}
	return f, nil
}

// gpuOptions: the layout's sessions share the device's memory limit;
// maxTokens is the largest budget the tuner may plan (TensorRT's profile
// must cover it).
func gpuOptions(o Options, d gpu.Device, sessions, maxTokens int) worker.GPUOptions {
	g := worker.GPUOptions{DeviceID: d.DeviceID, FP16: o.FP16, MaxSeqLen: o.MaxSeqLen,
		MaxBatchTokens: maxTokens, MaxBatchRows: BatchRows(o.Provider, maxTokens)}
	g.MemLimit = worker.SessionMemLimit(o.GPUMemFraction, d.MemoryTotal, sessions)
	if o.Provider == worker.ProviderTensorRT {
		g.TRTCacheDir, g.GPUModel = o.TRTCacheDir, d.Model
	}
	return g
}

// BatchRows caps batch rows where TensorRT's profile needs a bound; the
// scheduler must cut batches under the same cap.
func BatchRows(provider string, maxBatchTokens int) int {
	if provider == worker.ProviderTensorRT {
		return max(1, maxBatchTokens/64)
	}
	return 0
}

// watch starts the GPU sampler and the health watcher; replicas of an
// unhealthy device are reported by name to the scheduler.
func (f *Fleet) watch(ctx context.Context, n nvmlSession, devs []gpu.Device, o Options, log *zap.Logger) {
	ctx, cancel := context.WithCancel(ctx)
	s := n.NewSampler(devs, gpu.SamplerOptions{Interval: o.SampleInterval, Log: log})
	go s.Run(ctx)
	byUUID := map[string][]string{}
	for _, r := range f.Replicas {
		for _, d := range devs {
			if r.Name() == d.Name() || strings.HasPrefix(r.Name(), d.Name()+".") {
				byUUID[d.UUID] = append(byUUID[d.UUID], r.Name())
			}
		}
	}
	names := make(chan string, 16)
	events := &healthCounts{}
	go func() {
		for h := range n.WatchHealth(ctx, devs, gpu.WatchOptions{Log: log}) {
			events.add(h)
			log.Error("GPU unhealthy: its replicas retire", zap.Int("nvml_index", h.Index), zap.String("uuid", h.UUID),
				zap.Uint64("xid", h.Xid), zap.String("reason", h.Reason))
			for _, name := range byUUID[h.UUID] {
				names <- name
			}
		}
	}()
	f.Health = names
	f.Samples = func() []gpu.Sample { return events.apply(s.Latest()) }
	f.Summary = s.Summary
	f.Status = func() string {
		var parts []string
		for _, x := range s.Latest() {
			parts = append(parts, x.String())
		}
		return strings.Join(parts, " ")
	}
	inner := f.close
	f.close = func() {
		cancel()
		inner()
	}
}
