package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"qa-shard/gpu"
	"qa-shard/scheduler"
	"qa-shard/worker"
	"qa-shard/worker/sim"
)

// fleet is the set of replicas of a run and what watches their devices.
type fleet struct {
	replicas []scheduler.Replica
	health   <-chan string // replica names whose device became unhealthy
	status   func() string // GPU telemetry for the progress line
	samples  func() []gpu.Sample
	close    func()
}

// selectDevices resolves --devices with NVML (where a driver exists) and
// CUDA_VISIBLE_DEVICES, and exports the CUDA environment before ONNX
// Runtime touches CUDA.
func selectDevices(spec string, log *zap.Logger) (gpu.Selection, *gpu.NVML, error) {
	n, nerr := gpu.OpenSystem()
	var found []gpu.Device
	if nerr == nil {
		found, nerr = n.Devices()
	}
	sel, err := gpu.Plan(spec, found, nerr, os.LookupEnv)
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
// then takes every n-th GPU, so tasks do not land on each other's GPUs.
func slurmLocalShare(sel gpu.Selection, found []gpu.Device, nerr error, log *zap.Logger) (gpu.Selection, error) {
	local, err1 := strconv.Atoi(os.Getenv("SLURM_LOCALID"))
	n, err2 := strconv.Atoi(os.Getenv("SLURM_NTASKS_PER_NODE"))
	if err1 != nil || err2 != nil || n <= 1 || len(sel.Devices) < n || local < 0 || local >= n {
		return sel, nil
	}
	var mine []string
	for i, d := range sel.Devices {
		if i%n == local {
			mine = append(mine, d.UUID)
		}
	}
	log.Info("sharing the node's GPUs among Slurm tasks", zap.Int("local_task", local), zap.Int("tasks_per_node", n), zap.Strings("gpus", mine))
	return gpu.Plan(strings.Join(mine, ","), found, nerr, os.LookupEnv)
}

// startFleet creates the replicas: simulated ones for "sim:..." (tests and
// scheduler benchmarks), else ONNX Runtime sessions on the selected devices.
func startFleet(ctx context.Context, o *options, m *worker.Model, log *zap.Logger) (*fleet, error) {
	if sim.IsSpec(o.devices) {
		reps, err := sim.FromSpec(o.devices)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", gpu.ErrSelection, err)
		}
		f := &fleet{close: func() {}}
		for _, r := range reps {
			f.replicas = append(f.replicas, r)
		}
		log.Warn("simulated replicas: no model runs", zap.Int("replicas", len(reps)))
		return f, nil
	}
	sel, n, err := selectDevices(o.devices, log)
	if err != nil {
		return nil, err
	}
	f := &fleet{close: func() {}}
	if n != nil {
		f.close = func() { n.Close() }
	}
	made, err := newReplicas(o, m, sel, log)
	if err != nil {
		f.close()
		return nil, err
	}
	closeNVML := f.close
	f.close = func() {
		for _, r := range made {
			r.Close()
		}
		closeNVML()
	}
	for _, r := range made {
		f.replicas = append(f.replicas, r)
	}
	if sel.OnGPU() && n != nil {
		f.watch(ctx, n, sel.Devices, o, log)
	}
	return f, nil
}

func newReplicas(o *options, m *worker.Model, sel gpu.Selection, log *zap.Logger) ([]*worker.Replica, error) {
	provider, perDevice, threads := o.provider, o.replicasPerDevice, o.threads
	if sel.OnGPU() {
		if provider == "" {
			provider = worker.ProviderCUDA
		}
		perDevice = worker.SessionsPerGPU(perDevice)
	} else {
		if provider != "" && provider != worker.ProviderCPU {
			return nil, fmt.Errorf("%w: --provider %s needs a GPU, but --devices selected the CPU", gpu.ErrSelection, provider)
		}
		provider, perDevice = worker.ProviderCPU, 1
		if threads <= 0 {
			threads = max(1, runtime.NumCPU()/len(sel.Devices))
		}
	}
	var made []*worker.Replica
	for _, d := range sel.Devices {
		for k := range perDevice {
			name := d.Name()
			if perDevice > 1 {
				name = fmt.Sprintf("%s.%d", name, k)
			}
			r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: name, Provider: provider, Threads: threads, GPU: gpuOptions(o, d), Log: log})
			if err != nil {
				for _, x := range made {
					x.Close()
				}
				return nil, err
			}
			made = append(made, r)
			fields := []zap.Field{zap.String("replica", name), zap.String("provider", provider)}
			if d.Kind == gpu.KindCPU {
				fields = append(fields, zap.Int("threads", threads))
			} else {
				fields = append(fields, zap.Int("nvml_index", d.Index), zap.String("uuid", d.UUID), zap.String("bus_id", d.BusID),
					zap.Int("cuda_device_id", d.DeviceID), zap.String("model", d.Model))
			}
			log.Info("replica ready", fields...)
		}
	}
	return made, nil
}

func gpuOptions(o *options, d gpu.Device) worker.GPUOptions {
	g := worker.GPUOptions{DeviceID: d.DeviceID, FP16: o.fp16, MaxSeqLen: o.settings.MaxSeqLen,
		MaxBatchTokens: o.maxBatchTokens, MaxBatchRows: batchRows(o)}
	g.MemLimit = worker.SessionMemLimit(o.gpuMemFraction, d.MemoryTotal, o.replicasPerDevice)
	if o.provider == worker.ProviderTensorRT {
		g.TRTCacheDir, g.GPUModel = o.trtCacheDir, d.Model
	}
	return g
}

// batchRows caps batch rows where TensorRT's profile needs a bound.
func batchRows(o *options) int {
	if o.provider == worker.ProviderTensorRT {
		return max(1, o.maxBatchTokens/64)
	}
	return 0
}

// watch starts the GPU sampler and the health watcher; replicas of an
// unhealthy device are reported by name to the scheduler.
func (f *fleet) watch(ctx context.Context, n *gpu.NVML, devs []gpu.Device, o *options, log *zap.Logger) {
	ctx, cancel := context.WithCancel(ctx)
	s := n.NewSampler(devs, gpu.SamplerOptions{Interval: o.gpuSampleInterval, Log: log})
	go s.Run(ctx)
	byUUID := map[string][]string{}
	for _, r := range f.replicas {
		for _, d := range devs {
			if r.Name() == d.Name() || strings.HasPrefix(r.Name(), d.Name()+".") {
				byUUID[d.UUID] = append(byUUID[d.UUID], r.Name())
			}
		}
	}
	names := make(chan string, 16)
	go func() {
		for h := range n.WatchHealth(ctx, devs, gpu.WatchOptions{Log: log}) {
			log.Error("GPU unhealthy: its replicas retire", zap.Int("nvml_index", h.Index), zap.String("uuid", h.UUID),
				zap.Uint64("xid", h.Xid), zap.String("reason", h.Reason))
			for _, name := range byUUID[h.UUID] {
				names <- name
			}
		}
	}()
	f.health = names
	f.samples = s.Latest
	f.status = func() string {
		var parts []string
		for _, x := range s.Latest() {
			parts = append(parts, x.String())
		}
		return strings.Join(parts, " ")
	}
	inner := f.close
	f.close = func() {
		cancel()
		for _, x := range s.Summary() {
			log.Info("gpu summary", zap.String("gpu", x.String()))
			fmt.Fprintf(os.Stderr, "  %s\n", x.String())
		}
		inner()
	}
}
