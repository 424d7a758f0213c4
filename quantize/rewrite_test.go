package quantize

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"qa-shard/internal/onnxpb"
	"qa-shard/internal/testing/testmodel"
)

// TestQuantizeTinyBERT checks the rewritten graph of the generated BERT
// structurally: what became DynamicQuantizeMatMul, what each of its inputs
// holds, that everything else is byte for byte the original, and that the
// graph is still a valid, topologically ordered ONNX graph.
func TestQuantizeTinyBERT(t *testing.T) {
	in := tinyBERT(t)
	out, rep := mustQuantize(t, in)
	// 2 layers x 6 linear layers + the qa_outputs head; the 2 x 2
	// attention products (both inputs computed) fuse into 2
	// MultiHeadAttention nodes, so no MatMul stays float32.
	if rep.MatMuls != 13 || rep.Folded != 13 || rep.Float != 0 || rep.Attention != 2 {
		t.Errorf("report %+v: want 13 MatMuls, 13 folded, 0 float, 2 attention blocks", rep)
	}
	orig, m := mustParse(t, in), mustParse(t, out)
	if v, ok := m.OpsetVersion(msDomain); !ok || v != 1 {
		t.Errorf("com.microsoft opset %d, %v", v, ok)
	}
	if v, _ := m.OpsetVersion(""); v != 14 {
		t.Errorf("ai.onnx opset %d, want 14 as before", v)
	}
	if !strings.Contains(m.Metadata[MetadataKey], "13 MatMul weights") {
		t.Errorf("metadata %q", m.Metadata[MetadataKey])
	}
	before, after := opCounts(orig.Graph), opCounts(m.Graph)
	// Each fusion replaces 3 Reshape+Transpose pairs, MatMul, Div, the
	// mask's Add, Softmax, MatMul, Transpose and Reshape; the mask's own
	// arithmetic (Unsqueeze, Cast, Sub, Mul) is then read by nothing.
	if after["DynamicQuantizeMatMul"] != 13 || after["MatMul"] != 0 || after["MultiHeadAttention"] != 2 ||
		after["Softmax"]+after["Reshape"]+after["Transpose"]+after["Cast"]+after["Unsqueeze"] != 0 ||
		before["Add"]-after["Add"] != 13+2 || before["Div"]-after["Div"] != 2 || before["Mul"]-after["Mul"] != 1 {
		t.Errorf("operators before %v, after %v", before, after)
	}
	for _, n := range m.Graph.Nodes {
		if n.OpType != "MultiHeadAttention" {
			continue
		}
		heads, _ := n.Int("num_heads")
		if n.Domain != msDomain || len(n.Inputs) != 3 || heads != int64(testmodel.Tiny.Heads) ||
			n.Attrs["scale"].F != float32(1/math.Sqrt(float64(testmodel.Tiny.Hidden/testmodel.Tiny.Heads))) {
			t.Errorf("node %s: domain %q, inputs %v, attributes %+v", n.Name, n.Domain, n.Inputs, n.Attrs)
		}
	}
	oi, qi := initializers(orig.Graph), initializers(m.Graph)
	quantized := map[string]bool{}
	for _, n := range m.Graph.Nodes {
		if n.OpType != "DynamicQuantizeMatMul" {
			continue
		}
		if n.Domain != msDomain || len(n.Inputs) != 5 {
			t.Fatalf("node %s: domain %q, inputs %v", n.Name, n.Domain, n.Inputs)
		}
		q, s, z, b := qi[n.Inputs[1]], qi[n.Inputs[2]], qi[n.Inputs[3]], qi[n.Inputs[4]]
		if q == nil || s == nil || z == nil || b == nil {
			t.Fatalf("node %s: inputs %v are not all initializers", n.Name, n.Inputs)
		}
		src := oi[strings.TrimSuffix(q.Name, "_quantized")]
		if src == nil || qi[src.Name] != nil {
			t.Fatalf("node %s: int8 weight %s has no float32 original, or the original is still there", n.Name, q.Name)
		}
		quantized[src.Name] = true
		k, cols := src.Dims[0], src.Dims[1]
		if q.DataType != onnxpb.Int8 || len(q.Dims) != 2 || q.Dims[0] != k || q.Dims[1] != cols ||
			s.DataType != onnxpb.Float || len(s.Dims) != 1 || s.Dims[0] != cols ||
			z.DataType != onnxpb.Int8 || len(z.Dims) != 1 || z.Dims[0] != cols ||
			b.DataType != onnxpb.Float || len(b.Dims) != 1 || b.Dims[0] != cols {
			t.Fatalf("node %s: shapes q %v %v, scale %v, zero %v, bias %v for a %v weight", n.Name, q.DataType, q.Dims, s.Dims, z.Dims, b.Dims, src.Dims)
		}
		checkDequantized(t, m.Graph, src, q, s, z)
	}
	// Everything not quantized is the original, byte for byte, except the
	// constants only the fused nodes read (head shapes, scale, mask).
	read := map[string]bool{}
	m.Graph.Walk(func(n *onnxpb.Node) {
		for _, s := range n.Inputs {
			read[s] = true
		}
	})
	for name, x := range oi {
		if quantized[name] {
			continue
		}
		y := qi[name]
		switch {
		case y == nil && read[name]:
			t.Errorf("initializer %s vanished but is read", name)
		case y != nil && !read[name]:
			t.Errorf("initializer %s kept but read by nothing", name)
		case y != nil && !bytes.Equal(orig.Graph.Fields[x.Field].Raw, m.Graph.Fields[y.Field].Raw):
			t.Errorf("initializer %s changed", name)
		}
	}
	checkGraph(t, m.Graph)
	again, _ := mustQuantize(t, in)
	if !bytes.Equal(again, out) {
		t.Error("quantizing the same model twice gave different bytes")
	}
}

// checkDequantized: the int8 weight times its column scale is the
// original within half a step, and the zero points are zero.
func checkDequantized(t *testing.T, g *onnxpb.Graph, src, q, s, z *onnxpb.Tensor) {
	t.Helper()
	w, err := src.Float32s()
	if err != nil {
		t.Fatal(err)
	}
	scales, err := s.Float32s()
	if err != nil {
		t.Fatal(err)
	}
	qv, zv := payload(g, q), payload(g, z)
	cols := len(scales)
	for i, x := range w {
		sc := float64(scales[i%cols])
		if e := math.Abs(float64(x) - float64(int8(qv[i]))*sc); e > sc*(0.5+1e-5) {
			t.Fatalf("%s[%d]: %g dequantizes to %g", src.Name, i, x, float64(int8(qv[i]))*sc)
		}
	}
	if !bytes.Equal(zv, make([]byte, cols)) {
		t.Errorf("%s: zero points are not all 0", z.Name)
	}
}

// payload is the raw_data of a tensor the rewrite wrote.
func payload(g *onnxpb.Graph, x *onnxpb.Tensor) []byte {
	b := g.Fields[x.Field].Data
	want := int(x.Elements())
	return b[len(b)-want:] // raw_data is written last
}

// checkGraph: names are unique, every input exists before it is read, and
// every graph output is produced.
func checkGraph(t *testing.T, g *onnxpb.Graph) {
	t.Helper()
	have := map[string]bool{"": true}
	for _, x := range g.Initializers {
		if have[x.Name] {
			t.Errorf("initializer %s defined twice", x.Name)
		}
		have[x.Name] = true
	}
	for _, v := range g.Inputs {
		have[v.Name] = true
	}
	nodeNames := map[string]bool{}
	for _, n := range g.Nodes {
		if nodeNames[n.Name] {
			t.Errorf("node name %s used twice", n.Name)
		}
		nodeNames[n.Name] = true
		for _, s := range n.Inputs {
			if !have[s] {
				t.Errorf("node %s reads %s before anything produces it", n.Name, s)
			}
		}
		for _, s := range n.Outputs {
			if have[s] {
				t.Errorf("node %s produces %s, which exists already", n.Name, s)
			}
			have[s] = true
		}
	}
	for _, v := range append(g.Outputs, g.ValueInfos...) {
		if !have[v.Name] {
			t.Errorf("graph output or value info %s is produced by nothing", v.Name)
		}
	}
}

func opCounts(g *onnxpb.Graph) map[string]int {
	ops := map[string]int{}
	g.Walk(func(n *onnxpb.Node) { ops[n.OpType]++ })
	return ops
}
