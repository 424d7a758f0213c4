package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"qa-shard/gpu"
	"qa-shard/tune"
	"qa-shard/worker"
)

// pairs renders layouts as [{sessions threads} ...].
func pairs(ls []tune.Layout) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "{%d %d}", l.Sessions, l.Threads)
	}
	return "[" + b.String() + "]"
}

func TestCPULayouts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       Options
		devices int
		cores   int
		want    string
	}{
		{"measured, 2 cores", Options{Devices: "cpu"}, 1, 2, "[{2 1} {1 2}]"},
		{"measured, 16 cores: at most 8 sessions", Options{Devices: "cpu"}, 1, 16, "[{8 2} {4 4} {2 8} {1 16}]"},
		{"measured, 1 core", Options{Devices: "cpu"}, 1, 1, "[{1 1}]"},
		{"--threads 1 pins cores/1 sessions", Options{Devices: "cpu", Threads: 1}, 1, 2, "[{2 1}]"},
		{"--threads 2 pins one session", Options{Devices: "cpu", Threads: 2}, 1, 2, "[{1 2}]"},
		{"--replicas-per-device 2", Options{Devices: "cpu", ReplicasPerDevice: 2}, 1, 2, "[{2 1}]"},
		{"--replicas-per-device 2 --threads 2", Options{Devices: "cpu", ReplicasPerDevice: 2, Threads: 2}, 1, 2, "[{2 2}]"},
		{"cpu:2: one session per CPU device", Options{Devices: "cpu:2"}, 2, 2, "[{1 1}]"},
		{"cpu:1 pins one session", Options{Devices: "cpu:1"}, 1, 2, "[{1 2}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pairs(cpuLayouts(tc.o, tc.devices, tc.cores)); got != tc.want {
				t.Errorf("layouts %s, want %s", got, tc.want)
			}
		})
	}
}

func TestGPULayoutsAndBudgets(t *testing.T) {
	if got := pairs(gpuLayouts(Options{}, worker.ProviderCUDA)); got != "[{2 0} {1 0}]" {
		t.Errorf("CUDA layouts %s, want two then one session per GPU", got)
	}
	if got := pairs(gpuLayouts(Options{ReplicasPerDevice: 3}, worker.ProviderCUDA)); got != "[{3 0}]" {
		t.Errorf("pinned layouts %s", got)
	}
	if got := pairs(gpuLayouts(Options{}, worker.ProviderTensorRT)); got != "[{2 0}]" {
		t.Errorf("TensorRT layouts %s: engines take long to build, one layout", got)
	}
	sel := gpu.Selection{Devices: []gpu.Device{
		{Kind: gpu.KindGPU, Index: 0, Model: "NVIDIA H200"}, {Kind: gpu.KindGPU, Index: 1, Model: "NVIDIA H200"},
		{Kind: gpu.KindGPU, Index: 2, Model: "NVIDIA A100"}}}
	cs, err := planClasses(Options{MaxSeqLen: 384}, sel)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || len(cs[0].devices) != 2 || len(cs[1].devices) != 1 || cs[0].name != "NVIDIA H200 (cuda)" {
		t.Fatalf("classes %+v: want one per GPU model", cs)
	}
	if b := cs[0].budgets; b[0] != 8*384 || b[len(b)-1] != 1024*384 || b[cs[0].start] != 64*384 {
		t.Errorf("GPU budgets %v from %d", b, cs[0].start)
	}
	cs, _ = planClasses(Options{MaxSeqLen: 384, MaxBatchTokens: 5000}, sel)
	if fmt.Sprint(cs[0].budgets) != "[5000]" {
		t.Errorf("--max-batch-tokens 5000 gives budgets %v", cs[0].budgets)
	}
	if _, err := planClasses(Options{Provider: worker.ProviderCUDA}, gpu.Selection{Devices: []gpu.Device{{Kind: gpu.KindCPU}}}); err == nil {
		t.Error("--provider cuda on the CPU was accepted")
	}
}

// TestReplicaNames: a layout's sessions have the same names whether the
// layout was pinned or one of several a search measured (the names key
// windows_per_replica and the metrics, so runs compare), and the
// sessions of every candidate layout of a device are distinct.
func TestReplicaNames(t *testing.T) {
	cpu := gpu.Device{Kind: gpu.KindCPU}
	g := gpu.Device{Kind: gpu.KindGPU, Index: 3}
	for _, tc := range []struct {
		d    gpu.Device
		l    tune.Layout
		k    int
		want string
	}{
		{cpu, tune.Layout{Sessions: 2, Threads: 1}, 1, "cpu:0.2s.1"},
		{cpu, tune.Layout{Sessions: 1, Threads: 2}, 0, "cpu:0"},
		{g, tune.Layout{Sessions: 2, Threads: 0}, 1, "gpu3.2s.1"},
		{g, tune.Layout{Sessions: 1, Threads: 0}, 0, "gpu3"},
	} {
		if got := replicaName(tc.d, tc.l, tc.k); got != tc.want {
			t.Errorf("replicaName(%v, %v, %d) = %q, want %q", tc.d.Name(), tc.l, tc.k, got, tc.want)
		}
	}
	for _, cores := range []int{2, 4, 16} {
		seen := map[string]bool{}
		for _, l := range cpuLayouts(Options{}, 1, cores) {
			for k := range l.Sessions {
				n := replicaName(cpu, l, k)
				if seen[n] {
					t.Errorf("%d cores: two sessions of the candidate layouts are named %s", cores, n)
				}
				seen[n] = true
			}
		}
	}
}

func TestReplicaLabels(t *testing.T) {
	h200 := gpu.Device{Kind: gpu.KindGPU, Index: 0, Model: "NVIDIA H200"}
	mig := gpu.Device{Kind: gpu.KindGPU, Index: 1, Model: "NVIDIA A100-SXM4-80GB", Parent: "GPU-x", MIGIndex: 2}
	for _, tc := range []struct {
		d    gpu.Device
		l    tune.Layout
		k    int
		want string
	}{
		{gpu.Device{Kind: gpu.KindCPU}, tune.Layout{Sessions: 2, Threads: 1}, 1, "cpu#2 (1 thread)"},
		{gpu.Device{Kind: gpu.KindCPU}, tune.Layout{Sessions: 1, Threads: 2}, 0, "cpu#1 (2 threads)"},
		{gpu.Device{Kind: gpu.KindCPU, Index: 3}, tune.Layout{Sessions: 1, Threads: 1}, 0, "cpu#4 (1 thread)"}, // cpu:N, the fourth
		{h200, tune.Layout{Sessions: 2, Threads: 0}, 1, "gpu0 H200 #2"},
		{h200, tune.Layout{Sessions: 1, Threads: 0}, 0, "gpu0 H200"},
		{mig, tune.Layout{Sessions: 2, Threads: 0}, 0, "gpu1/mig2 A100-SXM4-80GB #1"},
	} {
		if got := replicaLabel(tc.d, tc.l, tc.k); got != tc.want {
			t.Errorf("replicaLabel(%v, %v, %d) = %q, want %q", tc.d.Name(), tc.l, tc.k, got, tc.want)
		}
	}
}

func TestSimFleetIsOneClass(t *testing.T) {
	f, err := Start(context.Background(), Options{Devices: "sim:3", MaxSeqLen: 384, Simulate: simulate}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Classes) != 1 || len(f.Classes[0].Layouts) != 1 || len(f.Classes[0].Layouts[0].Replicas) != 3 || len(f.Classes[0].Budgets) < 2 {
		t.Fatalf("classes %+v: want one class, one layout of the 3 replicas, budgets to measure", f.Classes)
	}
	if !f.Tunable() {
		t.Fatal("a sim fleet with no pinned budget is not tunable")
	}
	tn := f.Tuner("sha256=x", nil, nil)
	if b := tn.Budget("sim:0"); b <= 0 {
		t.Fatalf("the tuner plans %d for a sim replica", b)
	}
	if len(f.Choices()) != 1 {
		t.Fatalf("choices %+v", f.Choices())
	}
}
