package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// nodeRun is one node as ONNX Runtime's profile reports it after a run:
// where it ran and the element types of what it produced.
type nodeRun struct {
	Name, Op, Provider string
	Outputs            []string // element types, e.g. "float", "int64"
}

func (n nodeRun) String() string { return n.Op + " (" + n.Name + ")" }

// computes says whether the node produced floating-point tensors: model
// arithmetic, as opposed to the shape computations (int64 sizes and
// indices) that ONNX Runtime places on the CPU on purpose.
func (n nodeRun) computes() bool {
	for _, t := range n.Outputs {
		switch t {
		case "float", "float16", "bfloat16", "double":
			return true
		}
	}
	return false
}

// readProfile parses the JSON trace ONNX Runtime writes when profiling is
// enabled: one "Node" event per kernel run, named "<node>_kernel_time",
// with op_name, provider and output_type_shape ([{"float": [1, 8, 32]}]).
// Each node is listed once, in the order it first ran.
func readProfile(path string) ([]nodeRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading ONNX Runtime's profile: %w", err)
	}
	var events []struct {
		Cat  string `json:"cat"`
		Name string `json:"name"`
		Args struct {
			Op       string           `json:"op_name"`
			Provider string           `json:"provider"`
			Outputs  []map[string]any `json:"output_type_shape"`
		} `json:"args"`
	}
	if err := json.Unmarshal(b, &events); err != nil {
		return nil, fmt.Errorf("parsing ONNX Runtime's profile %s: %w", path, err)
	}
	var out []nodeRun
	seen := map[string]bool{}
	for _, e := range events {
		name, ok := strings.CutSuffix(e.Name, "_kernel_time")
		if e.Cat != "Node" || !ok || e.Args.Provider == "" || seen[name] {
			continue
		}
		seen[name] = true
		n := nodeRun{Name: name, Op: e.Args.Op, Provider: e.Args.Provider}
		for _, o := range e.Args.Outputs {
			for typ := range o {
				n.Outputs = append(n.Outputs, typ)
			}
		}
		slices.Sort(n.Outputs)
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ONNX Runtime's profile %s lists no node", path)
	}
	return out, nil
}

// onCPU splits the nodes that ran on ONNX Runtime's CPU provider into
// model arithmetic (compute) and shape computations (shape).
func onCPU(nodes []nodeRun) (compute, shape []nodeRun) {
	for _, n := range nodes {
		if n.Provider != "CPUExecutionProvider" {
			continue
		}
		if n.computes() {
			compute = append(compute, n)
		} else {
			shape = append(shape, n)
		}
	}
	return compute, shape
}

// listNodes names up to limit nodes, then how many more there are.
func listNodes(nodes []nodeRun, limit int) string {
	var parts []string
	for i, n := range nodes {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d more", len(nodes)-limit))
			break
		}
		parts = append(parts, n.String())
	}
	return strings.Join(parts, ", ")
}
