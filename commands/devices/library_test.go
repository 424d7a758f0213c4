package devices

import (
	"context"
	"strings"
	"testing"

	"qa-shard/gpu"
	"qa-shard/worker"
)

// TestGPUProblem: what stands in the way of a GPU run, as devices and
// devices --check say it: a library that does not load (even for the
// CPU), a CPU build, a GPU provider whose CUDA libraries the loader
// cannot find; nothing for a ready provider or no GPU at all.
func TestGPUProblem(t *testing.T) {
	cpu := worker.Provider{Name: worker.ProviderCPU}
	lib := func(ps ...worker.Provider) worker.Library {
		return worker.Library{Found: worker.Found{Path: "/opt/ort/libonnxruntime.so.1", From: "--ort-lib"}, Version: "1.29.0", Providers: append([]worker.Provider{cpu}, ps...)}
	}
	cudaMissing := worker.Provider{Name: worker.ProviderCUDA, File: "/opt/ort/libonnxruntime_providers_cuda.so", Missing: []string{"libcudart.so.13", "libcuda.so.1"}}
	cudaReady := worker.Provider{Name: worker.ProviderCUDA, File: "/opt/ort/libonnxruntime_providers_cuda.so"}
	broken := lib()
	broken.LoadErr = "ONNX Runtime library /opt/ort/libonnxruntime.so.1 not found"
	for _, c := range []struct {
		name string
		lib  worker.Library
		gpus int
		want []string // "" for no problem
	}{
		{"CPU build, no GPU", lib(), 0, nil},
		{"CPU build, two GPUs", lib(), 2, []string{"is a CPU build", "make install-gpu PREFIX=DIR", "--ort-lib"}},
		{"CUDA libraries missing", lib(cudaMissing), 1, []string{"cuda provider", "libcudart.so.13, libcuda.so.1", "module load", "LD_LIBRARY_PATH"}},
		{"ready", lib(cudaReady), 4, nil},
		{"ready TensorRT beside a broken CUDA", lib(cudaMissing, worker.Provider{Name: worker.ProviderTensorRT, File: "x"}), 1, nil},
		{"library that does not load", broken, 0, []string{"not found"}},
	} {
		got := gpuProblem(c.lib, c.gpus)
		if (got == "") != (c.want == nil) {
			t.Errorf("%s: %q, want a problem: %v", c.name, got, c.want != nil)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not say %q", c.name, got, w)
			}
		}
	}
	if got := lib(cudaMissing).ProvidersLine(); got != "cpu, cuda (missing libcudart.so.13, libcuda.so.1)" {
		t.Errorf("ProvidersLine = %q", got)
	}
	if got := lib().ProvidersLine(); !strings.Contains(got, "a CPU build") {
		t.Errorf("ProvidersLine of a CPU build = %q, want it to say so", got)
	}
}

// TestCheckSkipsSimulatedDevices: devices --check for a run on simulated
// devices (--devices sim:...) checks no GPU, as the Slurm scripts' preflight
// runs it with the run's --devices.
func TestCheckSkipsSimulatedDevices(t *testing.T) {
	noDriver := func() (NVML, error) { return nil, gpu.ErrNoDriver }
	var b strings.Builder
	if err := devices(context.Background(), &b, noDriver, options{Check: true, Select: "sim:1:rate=4000"}); err != nil {
		t.Errorf("--check --devices sim:1: %v, want no problem", err)
	}
	if err := devices(context.Background(), &b, noDriver, options{Check: true, Select: "0"}); err == nil {
		t.Error("--check --devices 0 without a driver passed, want it refused")
	}
}
