package quantize

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"qa-shard/internal/onnxpb"
)

// linearModel is y = x W + b, the smallest model quantize accepts.
func linearModel() mini {
	return mini{
		nodes:   []onnxpb.Node{node("MatMul", []string{"x", "W"}, "xw"), node("Add", []string{"b", "xw"}, "y")},
		inits:   [][]byte{randomTensor("W", 1, 4, 3), randomTensor("b", 2, 3)},
		inputs:  []string{"x"},
		outputs: []string{"y"},
	}
}

// TestRefusals: every model quantize cannot handle is refused with
// ErrUnsupported, a reason a user can act on, and nothing written.
func TestRefusals(t *testing.T) {
	quantized, _ := mustQuantize(t, linearModel().bytes())
	nan := linearModel()
	nan.inits[0] = onnxpb.EncodeTensor("W", onnxpb.Float, []int64{2, 2}, f32(1, float32(math.NaN()), 3, 4))
	cases := []struct {
		name  string
		model []byte
		want  string
	}{
		{"twice", quantized, "quantized already"},
		{"quantized elsewhere", func() []byte {
			m := linearModel()
			m.nodes = append(m.nodes, node("QuantizeLinear", []string{"y", "s"}, "q"))
			return m.bytes()
		}(), "1 QuantizeLinear"},
		{"not protobuf", []byte("\xff\xff\xff\xff not a model"), "cannot be read as ONNX"},
		{"no graph", onnxpb.AppendVarint(nil, onnxpb.ModelIRVersion, 8), "no graph"},
		{"no MatMul", mini{nodes: []onnxpb.Node{node("Relu", []string{"x"}, "y")}, inputs: []string{"x"}, outputs: []string{"y"}}.bytes(), "no MatMul"},
		{"computed weight", mini{nodes: []onnxpb.Node{node("MatMul", []string{"x", "x2"}, "y")}, inputs: []string{"x", "x2"}, outputs: []string{"y"}}.bytes(), "second input computed"},
		{"float16 weight", func() []byte {
			m := linearModel()
			m.inits[0] = onnxpb.EncodeTensor("W", onnxpb.Float16, []int64{4, 3}, make([]byte, 24))
			return m.bytes()
		}(), "float16 weight"},
		{"weight is a graph input", func() []byte {
			m := linearModel()
			m.inputs = append(m.inputs, "W")
			return m.bytes()
		}(), "overridable as a graph input"},
		{"weight of rank 3", func() []byte {
			m := linearModel()
			m.inits[0] = randomTensor("W", 1, 1, 4, 3)
			return m.bytes()
		}(), "rank 3"},
		{"external data", func() []byte {
			m := linearModel()
			m.inits[0] = onnxpb.AppendVarint(onnxpb.EncodeTensor("W", onnxpb.Float, []int64{4, 3}, nil), onnxpb.TensorDataLocation, 1)
			return m.bytes()
		}(), "external data"},
		{"old opset", func() []byte {
			m := linearModel()
			m.opsets = []onnxpb.Opset{{Version: 6}}
			return m.bytes()
		}(), "opset 6"},
		{"no standard opset", func() []byte {
			m := linearModel()
			m.opsets = []onnxpb.Opset{{Domain: "com.example", Version: 1}}
			return m.bytes()
		}(), "no standard ONNX opset"},
		{"contrib opset 2", func() []byte {
			m := linearModel()
			m.opsets = []onnxpb.Opset{{Version: 14}, {Domain: msDomain, Version: 2}}
			return m.bytes()
		}(), "com.microsoft opset 2"},
		{"NaN weight", nan.bytes(), "NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := rewriteModel(c.model, &out, Options{})
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want ErrUnsupported saying %q", err, c.want)
			}
			if out.Len() > 0 {
				t.Errorf("%d bytes written for a refused model", out.Len())
			}
		})
	}
}

// TestSharedAndUnfoldable: a weight two MatMuls read is quantized once; a
// weight another node reads stays as well; a MatMul whose output is read
// twice, or is a graph output, keeps its output and gets no bias; the
// value info of a folded-away value goes.
func TestSharedAndUnfoldable(t *testing.T) {
	m := mini{
		nodes: []onnxpb.Node{
			node("MatMul", []string{"x", "W"}, "y1"), node("Add", []string{"y1", "b"}, "z1"), // folds (bias second)
			node("MatMul", []string{"x", "W"}, "y2"), node("Add", []string{"b", "y2"}, "z2"), node("Relu", []string{"y2"}, "r2"), // y2 read twice
			node("MatMul", []string{"x", "V"}, "y3"),                                         // a graph output
			node("Identity", []string{"V"}, "v"),                                             // V read by another node
			node("MatMul", []string{"x", "U"}, "y4"), node("Add", []string{"y4", "c"}, "z4"), // c is [1, 3], not [3]
		},
		inits:   [][]byte{randomTensor("W", 1, 4, 3), randomTensor("b", 2, 3), randomTensor("V", 3, 4, 3), randomTensor("U", 4, 4, 3), randomTensor("c", 5, 1, 3)},
		inputs:  []string{"x"},
		outputs: []string{"z1", "z2", "r2", "y3", "v", "z4"},
		infos:   []string{"y1", "y2"},
	}
	out, rep := mustQuantize(t, m.bytes())
	if rep.MatMuls != 4 || rep.Folded != 1 || rep.Weights != 3*12 {
		t.Errorf("report %+v: want 4 MatMuls (3 weights), 1 folded", rep)
	}
	q := mustParse(t, out)
	checkGraph(t, q.Graph)
	inits := initializers(q.Graph)
	for name, want := range map[string]bool{"W": false, "V": true, "U": false, "W_quantized": true, "V_quantized": true, "W_quantized_1": false} {
		if (inits[name] != nil) != want {
			t.Errorf("initializer %s present: %v, want %v", name, inits[name] != nil, want)
		}
	}
	produced := map[string][]string{}
	for _, n := range q.Graph.Nodes {
		produced[n.Outputs[0]] = n.Inputs
	}
	if in := produced["z1"]; len(in) != 5 || in[4] != "b" {
		t.Errorf("z1 comes from %v; want the folded node with bias b", in)
	}
	for _, y := range []string{"y2", "y3", "y4"} {
		if in := produced[y]; len(in) != 4 {
			t.Errorf("%s comes from %v; want an unfolded DynamicQuantizeMatMul", y, in)
		}
	}
	if _, ok := produced["y1"]; ok {
		t.Error("y1 still produced after folding")
	}
	if len(q.Graph.ValueInfos) != 1 || q.Graph.ValueInfos[0].Name != "y2" {
		t.Errorf("value infos %v; want only y2's", q.Graph.ValueInfos)
	}
}
