package quantize

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/onnxpb"
)

func i64(name string, v ...int64) []byte {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = append(raw, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
	}
	return onnxpb.EncodeTensor(name, onnxpb.Int64, []int64{int64(len(v))}, raw)
}

func scalarTensor(name string, v float32) []byte {
	return onnxpb.EncodeTensor(name, onnxpb.Float, nil, f32(v))
}

func withAttrs(n onnxpb.Node, attrs map[string]onnxpb.Attr) onnxpb.Node {
	n.Attrs = attrs
	return n
}

func perm(p ...int64) map[string]onnxpb.Attr {
	return map[string]onnxpb.Attr{"perm": {Type: onnxpb.AttrInts, Ints: p}}
}

// attentionGraph is one self-attention block as torch exports BERT's
// eager attention: 8 wide, 2 heads of 4, scores divided by 2, an additive
// mask made from the graph input m. change edits it before it is encoded.
func attentionGraph(change func(*mini)) []byte {
	m := mini{
		nodes: []onnxpb.Node{
			node("Mul", []string{"m", "neg"}, "mask"),
			node("MatMul", []string{"x", "Wq"}, "q"), node("MatMul", []string{"x", "Wk"}, "k"), node("MatMul", []string{"x", "Wv"}, "v"),
			node("Reshape", []string{"q", "split"}, "q4"), withAttrs(node("Transpose", []string{"q4"}, "qt"), perm(0, 2, 1, 3)),
			node("Reshape", []string{"k", "split"}, "k4"), withAttrs(node("Transpose", []string{"k4"}, "kt"), perm(0, 2, 3, 1)),
			node("Reshape", []string{"v", "split"}, "v4"), withAttrs(node("Transpose", []string{"v4"}, "vt"), perm(0, 2, 1, 3)),
			node("MatMul", []string{"qt", "kt"}, "s"), node("Div", []string{"s", "two"}, "sd"), node("Add", []string{"sd", "mask"}, "sm"),
			withAttrs(node("Softmax", []string{"sm"}, "p"), map[string]onnxpb.Attr{"axis": {Type: onnxpb.AttrInt, I: -1}}),
			node("MatMul", []string{"p", "vt"}, "c"), withAttrs(node("Transpose", []string{"c"}, "ct"), perm(0, 2, 1, 3)),
			node("Reshape", []string{"ct", "merge"}, "out"),
		},
		inits: [][]byte{randomTensor("Wq", 1, 8, 8), randomTensor("Wk", 2, 8, 8), randomTensor("Wv", 3, 8, 8),
			i64("split", 0, 0, 2, 4), i64("merge", 0, 0, 8), scalarTensor("two", 2), scalarTensor("neg", -10000)},
		inputs:  []string{"x", "m"},
		outputs: []string{"out"},
	}
	if change != nil {
		change(&m)
	}
	return m.bytes()
}

// TestAttentionFused: the block becomes one MultiHeadAttention over the
// (quantized) projections with its heads and scale, and what only the
// block read goes: the mask's Mul and the shape and scale constants.
func TestAttentionFused(t *testing.T) {
	for name, change := range map[string]func(*mini){
		"as exported":           nil,
		"mask the first addend": func(m *mini) { m.nodes[12].Inputs = []string{"mask", "sd"} },
		"scaled by Mul":         func(m *mini) { m.nodes[11].OpType = "Mul"; m.inits[5] = scalarTensor("two", 0.5) },
	} {
		t.Run(name, func(t *testing.T) { checkFused(t, attentionGraph(change)) })
	}
}

func checkFused(t *testing.T, model []byte) {
	out, rep := mustQuantize(t, model)
	if rep.Attention != 1 || rep.MatMuls != 3 || rep.Float != 0 {
		t.Fatalf("report %+v: want 1 attention block, 3 MatMuls int8, none float", rep)
	}
	q := mustParse(t, out)
	checkGraph(t, q.Graph)
	if ops := opCounts(q.Graph); len(ops) != 2 || ops["DynamicQuantizeMatMul"] != 3 || ops["MultiHeadAttention"] != 1 {
		t.Fatalf("operators %v: want 3 DynamicQuantizeMatMul and 1 MultiHeadAttention", ops)
	}
	for _, n := range q.Graph.Nodes {
		if n.OpType != "MultiHeadAttention" {
			continue
		}
		heads, _ := n.Int("num_heads")
		if !slices.Equal(n.Inputs, []string{"q", "k", "v"}) || !slices.Equal(n.Outputs, []string{"out"}) || heads != 2 ||
			n.Attrs["scale"].Type != onnxpb.AttrFloat || n.Attrs["scale"].F != 0.5 || n.Domain != msDomain {
			t.Errorf("fused node %+v", n)
		}
	}
	inits := initializers(q.Graph)
	for _, name := range []string{"split", "merge", "two", "neg"} {
		if inits[name] != nil {
			t.Errorf("initializer %s is read by nothing now but was kept", name)
		}
	}
}

// TestAttentionNotFused: a block that differs from the exported form in
// any way that matters stays as it is, its two products float32.
func TestAttentionNotFused(t *testing.T) {
	cases := map[string]func(*mini){
		"probabilities also a graph output": func(m *mini) { m.outputs = append(m.outputs, "p") },
		"scores also a graph output":        func(m *mini) { m.outputs = append(m.outputs, "s") },
		"K not transposed for Q x K^T":      func(m *mini) { m.nodes[7] = withAttrs(m.nodes[7], perm(0, 2, 1, 3)) },
		"softmax over another axis": func(m *mini) {
			m.nodes[13] = withAttrs(m.nodes[13], map[string]onnxpb.Attr{"axis": {Type: onnxpb.AttrInt, I: 1}})
		},
		"head split computed":  func(m *mini) { m.inputs = append(m.inputs, "split") },
		"heads differ":         func(m *mini) { m.nodes[8].Inputs[1] = "split2"; m.inits = append(m.inits, i64("split2", 0, 0, 4, 2)) },
		"scale not a constant": func(m *mini) { m.nodes[11].Inputs[1] = "x" },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			out, rep := mustQuantize(t, attentionGraph(change))
			if rep.Attention != 0 || rep.Float != 2 {
				t.Fatalf("report %+v: want no fusion and the 2 attention products float32", rep)
			}
			q := mustParse(t, out)
			checkGraph(t, q.Graph)
			if ops := opCounts(q.Graph); ops["Softmax"] != 1 || ops["Mul"] != 1 || ops["MultiHeadAttention"] != 0 {
				t.Errorf("operators %v", ops)
			}
		})
	}
}

// TestKeepAttention: with Options.KeepAttention the block stays as
// exported, mask included, and the metadata says so.
func TestKeepAttention(t *testing.T) {
	var out bytes.Buffer
	rep, err := rewriteModel(attentionGraph(nil), &out, Options{KeepAttention: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Attention != 0 || rep.Float != 2 || rep.MatMuls != 3 {
		t.Fatalf("report %+v: want the block kept, its 2 products float32", rep)
	}
	q := mustParse(t, out.Bytes())
	checkGraph(t, q.Graph)
	if ops := opCounts(q.Graph); ops["Softmax"] != 1 || ops["Mul"] != 1 || ops["MultiHeadAttention"] != 0 {
		t.Errorf("operators %v", ops)
	}
	if !strings.Contains(q.Metadata[MetadataKey], "attention kept as exported") {
		t.Errorf("metadata %q", q.Metadata[MetadataKey])
	}
}

// constNode is a Constant node whose value is the encoded TensorProto t.
func constNode(out string, t []byte) []byte {
	a := onnxpb.AppendString(nil, 1, "value")
	a = onnxpb.AppendMessage(a, 5, t)
	a = onnxpb.AppendVarint(a, 20, uint64(onnxpb.AttrTensor))
	b := onnxpb.AppendString(nil, onnxpb.NodeOutput, out)
	b = onnxpb.AppendString(b, onnxpb.NodeName, "Constant_"+out)
	b = onnxpb.AppendString(b, onnxpb.NodeOpType, "Constant")
	return onnxpb.AppendMessage(b, onnxpb.NodeAttribute, a)
}

// TestAttentionFusedDynamicShapes: the block as torch exports it with
// dynamic axes (shapes from Shape, Gather, Unsqueeze and Concat with
// Constant head counts, the scale a Constant node, K^T as two Transposes)
// fuses too, and the shape arithmetic and constants go with it.
func TestAttentionFusedDynamicShapes(t *testing.T) {
	model := attentionGraphDyn()
	checkFused(t, model)
	out, _ := mustQuantize(t, model)
	inits := initializers(mustParse(t, out).Graph)
	for _, name := range []string{"i0", "i1", "ax0", "neg"} {
		if inits[name] != nil {
			t.Errorf("initializer %s is read by nothing now but was kept", name)
		}
	}
}

func attentionGraphDyn() []byte {
	return attentionGraph(func(m *mini) {
		m.raw = [][]byte{constNode("heads", i64("", 2)), constNode("size", i64("", 4)), constNode("hidden", i64("", 8)),
			constNode("two_c", scalarTensor("", 2))}
		dims := []onnxpb.Node{
			node("Shape", []string{"x"}, "xs"),
			node("Gather", []string{"xs", "i0"}, "dim0"), node("Unsqueeze", []string{"dim0", "ax0"}, "b1"),
			node("Gather", []string{"xs", "i1"}, "dim1"), node("Unsqueeze", []string{"dim1", "ax0"}, "s1"),
			withAttrs(node("Concat", []string{"b1", "s1", "heads", "size"}, "split"), map[string]onnxpb.Attr{"axis": {Type: onnxpb.AttrInt, I: 0}}),
			withAttrs(node("Concat", []string{"b1", "s1", "hidden"}, "merge"), map[string]onnxpb.Attr{"axis": {Type: onnxpb.AttrInt, I: 0}}),
		}
		m.nodes = append(dims, m.nodes...)
		k := len(dims)
		m.nodes[k+7] = withAttrs(node("Transpose", []string{"k4"}, "kp"), perm(0, 2, 1, 3))                         // K: heads first,
		m.nodes = slices.Insert(m.nodes, k+8, withAttrs(node("Transpose", []string{"kp"}, "kt"), perm(0, 1, 3, 2))) // then K^T
		m.nodes[k+12].Inputs[1] = "two_c"
		m.inits = append(m.inits[:3], i64("i0", 0), i64("i1", 1), i64("ax0", 0), scalarTensor("neg", -10000))
	})
}
