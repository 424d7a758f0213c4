package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/cli"
	"qa-shard/job"
	"qa-shard/qamodel"
	"qa-shard/worker"
)

// TestModelGraph: --graph auto builds the fused graph for CUDA GPUs and
// the standard one for the CPU and TensorRT; --precision fp16 builds a
// float16 graph for CUDA (TensorRT makes its own float16 engines from the
// float32 graph); what a device cannot run is refused before any work,
// naming what would run.
func TestModelGraph(t *testing.T) {
	checkpoint := t.TempDir()
	export := t.TempDir()
	if err := os.WriteFile(filepath.Join(export, "model.onnx"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		model  string
		target string
		want   qamodel.Graph
		refuse string // part of the message, "" for none
	}{
		{nil, checkpoint, worker.ProviderCPU, qamodel.Graph{}, ""},
		{nil, checkpoint, worker.ProviderCUDA, qamodel.Graph{Fused: true}, ""},
		{nil, checkpoint, worker.ProviderTensorRT, qamodel.Graph{}, ""},
		{[]string{"--graph", "fused"}, checkpoint, worker.ProviderCPU, qamodel.Graph{Fused: true}, ""},
		{[]string{"--graph", "standard"}, checkpoint, worker.ProviderCUDA, qamodel.Graph{}, ""},
		{[]string{"--precision", "fp16"}, checkpoint, worker.ProviderCUDA, qamodel.Graph{Fused: true, Float16: true}, ""},
		{[]string{"--fp16"}, checkpoint, worker.ProviderCUDA, qamodel.Graph{Fused: true, Float16: true}, ""},
		{[]string{"--precision", "fp16"}, checkpoint, worker.ProviderTensorRT, qamodel.Graph{}, ""},
		{[]string{"--precision", "fp16"}, export, worker.ProviderTensorRT, qamodel.Graph{}, ""},
		{[]string{"--precision", "fp16"}, checkpoint, worker.ProviderCPU, qamodel.Graph{}, "is for CUDA GPUs"},
		{[]string{"--precision", "fp16"}, export, worker.ProviderCUDA, qamodel.Graph{}, "qa-shard export --precision fp16"},
		{[]string{"--precision", "fp16", "--graph", "standard"}, checkpoint, worker.ProviderCUDA, qamodel.Graph{}, "use --graph fused"},
		{[]string{"--graph", "fused"}, checkpoint, worker.ProviderTensorRT, qamodel.Graph{}, "TensorRT parses"},
	} {
		o, err := parse(append([]string{"--model", tc.model, "--input", "x.jsonl", "--question", "q"}, tc.args...), "")
		if err == nil {
			err = o.Check()
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		g, err := job.ModelGraph(o, tc.target)
		switch {
		case tc.refuse == "" && (err != nil || g != tc.want):
			t.Errorf("%v on %s: %+v, %v; want %+v", tc.args, tc.target, g, err, tc.want)
		case tc.refuse != "" && (!errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("%v on %s: %v, want a usage error saying %q", tc.args, tc.target, err, tc.refuse)
		}
	}
	for _, bad := range [][]string{{"--precision", "fp64"}, {"--graph", "onnx"}} {
		o, err := parse(append([]string{"--model", checkpoint, "--input", "x.jsonl", "--question", "q"}, bad...), "")
		if err == nil {
			err = o.Check()
		}
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: %v, want a usage error naming the flag", bad, err)
		}
	}
}
