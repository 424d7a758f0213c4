package worker

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The probe reads a real ONNX Runtime profile. On the CPU provider every
// node runs on the CPU: the shape computation of the position ids is told
// apart from the model arithmetic by what the nodes produce.
func TestProfileNodesCPU(t *testing.T) {
	m := openModel(t, "tiny")
	nodes, err := profileNodes(m, ReplicaOptions{Name: "probe", Provider: ProviderCPU, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	compute, shape := onCPU(nodes)
	if len(compute)+len(shape) != len(nodes) {
		t.Errorf("%d nodes, %d compute + %d shape: every node ran on the CPU", len(nodes), len(compute), len(shape))
	}
	i := slices.IndexFunc(shape, func(n nodeRun) bool { return n.Name == "/bert/embeddings/Shape" })
	if i < 0 || shape[i].Op != "Shape" || !slices.Equal(shape[i].Outputs, []string{"int64"}) {
		t.Errorf("the Shape node is not a shape computation: %v", shape)
	}
	if !slices.ContainsFunc(compute, func(n nodeRun) bool { return n.Op == "MatMul" && slices.Contains(n.Outputs, "float") }) {
		t.Errorf("no float MatMul among the compute nodes: %v", compute)
	}
	p := probePlacement(m, ReplicaOptions{Name: "probe", Provider: ProviderCPU, Threads: 1})
	if !errors.Is(p.err, ErrConfig) || !strings.Contains(p.err.Error(), "cannot run") || !strings.Contains(p.err.Error(), "MatMul (") {
		t.Errorf("probe verdict %v: want an ErrConfig naming the MatMul nodes", p.err)
	}
}

func TestReadProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	trace := `[
 {"cat":"Session","name":"model_loading_uri","args":{}},
 {"cat":"Node","name":"/Shape_fence_before","args":{"op_name":"Shape"}},
 {"cat":"Node","name":"/Shape_kernel_time","args":{"op_name":"Shape","provider":"CPUExecutionProvider","output_type_shape":[{"int64":[2]}]}},
 {"cat":"Node","name":"/Shape_kernel_time","args":{"op_name":"Shape","provider":"CPUExecutionProvider","output_type_shape":[{"int64":[2]}]}},
 {"cat":"Node","name":"/LayerNorm_kernel_time","args":{"op_name":"LayerNormalization","provider":"CPUExecutionProvider","output_type_shape":[{"float16":[1,8,32]},{"float":[1,8,1]}]}},
 {"cat":"Node","name":"/MatMul_kernel_time","args":{"op_name":"MatMul","provider":"CUDAExecutionProvider","output_type_shape":[{"float":[1,8,32]}]}}
]`
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	nodes, err := readProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Fatalf("%d nodes, want 3 (fences and repeats dropped): %v", len(nodes), nodes)
	}
	compute, shape := onCPU(nodes)
	if len(compute) != 1 || compute[0].Op != "LayerNormalization" || len(shape) != 1 || shape[0].Name != "/Shape" {
		t.Errorf("compute %v, shape %v", compute, shape)
	}
	if got := listNodes(append(compute, shape...), 1); got != "LayerNormalization (/LayerNorm), and 1 more" {
		t.Errorf("listNodes = %q", got)
	}
	if err := os.WriteFile(path, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readProfile(path); err == nil {
		t.Error("an empty profile was accepted")
	}
}
