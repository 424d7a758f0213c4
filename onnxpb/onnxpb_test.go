package onnxpb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/testmodel"
)

func tinyModel(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := testmodel.WriteModel(&buf, testmodel.Tiny); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParseGeneratedModel reads what testmodel writes (an optimum-shaped
// BERT) and checks what it decoded against what the generator built.
func TestParseGeneratedModel(t *testing.T) {
	b := tinyModel(t)
	m, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := m.OpsetVersion(""); !ok || v != 14 {
		t.Errorf("ai.onnx opset %d, %v; want 14", v, ok)
	}
	if v, ok := m.OpsetVersion("ai.onnx"); !ok || v != 14 {
		t.Errorf("opset by the name ai.onnx: %d, %v", v, ok)
	}
	if m.IRVersion != 8 || m.Graph == nil || m.GraphAt < 0 {
		t.Fatalf("IR %d, graph %v at %d", m.IRVersion, m.Graph != nil, m.GraphAt)
	}
	ops := map[string]int{}
	m.Graph.Walk(func(n *Node) { ops[n.OpType]++ })
	// Per layer: 6 linear layers (Q, K, V, attention output, intermediate,
	// output) + 2 attention MatMuls; plus the qa_outputs head.
	if ops["MatMul"] != 2*8+1 || ops["Erf"] != 2 || ops["Softmax"] != 2 {
		t.Errorf("operators %v", ops)
	}
	var names []string
	for _, v := range m.Graph.Inputs {
		names = append(names, v.Name)
	}
	for _, v := range m.Graph.Outputs {
		names = append(names, v.Name)
	}
	if got := joined(names); got != "input_ids attention_mask token_type_ids start_logits end_logits" {
		t.Errorf("inputs and outputs %q", got)
	}
	var w *Tensor
	for _, x := range m.Graph.Initializers {
		if x.Name == "qa_outputs.weight" {
			w = x
		}
	}
	if w == nil || w.DataType != Float || len(w.Dims) != 2 || w.Dims[0] != 32 || w.Dims[1] != 2 {
		t.Fatalf("qa_outputs.weight: %+v", w)
	}
	vals, err := w.Float32s()
	if err != nil || len(vals) != 64 {
		t.Fatalf("%d values, %v", len(vals), err)
	}
	nonzero := 0
	for _, v := range vals {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero < 60 {
		t.Errorf("only %d of 64 weights are nonzero: decoded from the wrong bytes?", nonzero)
	}
	// Every field's Raw bytes, concatenated, are the file again.
	var again Pieces
	for _, f := range m.Fields {
		again.Add(f.Raw)
	}
	var buf bytes.Buffer
	if _, err := again.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), b) || again.Len() != len(b) {
		t.Error("the fields' raw bytes do not reassemble the file")
	}
}

func joined(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// TestTensorEncodings: dims packed or not, values in float_data packed or
// one by one, and shapes that do not match the data.
func TestTensorEncodings(t *testing.T) {
	vals := []float32{1.5, -2, 0.25, 8}
	packedDims := protowire.AppendTag(nil, TensorDims, protowire.BytesType)
	packedDims = protowire.AppendBytes(packedDims, protowire.AppendVarint(protowire.AppendVarint(nil, 2), 2))
	var floats, packed []byte
	for _, v := range vals {
		floats = protowire.AppendTag(floats, TensorFloatData, protowire.Fixed32Type)
		floats = protowire.AppendFixed32(floats, mathBits(v))
		packed = protowire.AppendFixed32(packed, mathBits(v))
	}
	base := AppendVarint(AppendString(nil, TensorName, "w"), TensorDataType, uint64(Float))
	cases := map[string][]byte{
		"raw, unpacked dims":    EncodeTensor("w", Float, []int64{2, 2}, float32Bytes(vals)),
		"float_data one by one": append(append(append([]byte{}, base...), packedDims...), floats...),
		"float_data packed":     AppendMessage(append(append([]byte{}, base...), packedDims...), TensorFloatData, packed),
	}
	for name, b := range cases {
		tn, err := parseTensor(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := tn.Float32s()
		if err != nil || len(tn.Dims) != 2 || tn.Elements() != 4 || len(got) != 4 {
			t.Fatalf("%s: dims %v, %v, %v", name, tn.Dims, got, err)
		}
		for i := range vals {
			if got[i] != vals[i] {
				t.Errorf("%s: value %d is %g, want %g", name, i, got[i], vals[i])
			}
		}
	}
	short, _ := parseTensor(EncodeTensor("w", Float, []int64{3, 2}, float32Bytes(vals)))
	if _, err := short.Float32s(); !errors.Is(err, ErrMalformed) {
		t.Errorf("4 values for a [3, 2] tensor: %v", err)
	}
	ext, _ := parseTensor(AppendVarint(EncodeTensor("w", Float, []int64{2, 2}, nil), TensorDataLocation, 1))
	if _, err := ext.Float32s(); !ext.External || err == nil {
		t.Errorf("external tensor: External %v, error %v", ext.External, err)
	}
	i8, _ := parseTensor(EncodeTensor("q", Int8, []int64{4}, []byte{1, 2, 3, 4}))
	if _, err := i8.Float32s(); err == nil {
		t.Error("an int8 tensor read as float32")
	}
}

// TestMalformed: truncated or garbage bytes are errors, never panics.
func TestMalformed(t *testing.T) {
	b := tinyModel(t)
	for _, cut := range []int{1, 7, 100, len(b) / 2, len(b) - 1} {
		if _, err := Parse(b[:cut]); !errors.Is(err, ErrMalformed) {
			t.Errorf("model cut at %d bytes: %v", cut, err)
		}
	}
	if _, err := Parse([]byte("this is not a protobuf at all")); err == nil {
		t.Error("text parsed as a model")
	}
	deep := EncodeNode(Node{OpType: "Identity"})
	for range maxDepth + 2 {
		g := AppendMessage(nil, GraphNode, deep)
		attr := AppendMessage(AppendString(nil, 1, "body"), attrGraph, g)
		deep = AppendMessage(AppendString(nil, NodeOpType, "If"), NodeAttribute, attr)
	}
	if _, err := Parse(AppendMessage(nil, ModelGraph, AppendMessage(nil, GraphNode, deep))); !errors.Is(err, ErrMalformed) {
		t.Errorf("subgraphs nested %d deep: %v", maxDepth+2, err)
	}
}

func TestOpTypesAndOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, tinyModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := OpTypes(path)
	if err != nil || ops["MatMul"] != 17 || ops["Gather"] == 0 {
		t.Fatalf("%v, %v", ops, err)
	}
	empty := filepath.Join(dir, "empty.onnx")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpTypes(empty); !errors.Is(err, ErrMalformed) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := OpTypes(filepath.Join(dir, "missing.onnx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func mathBits(v float32) uint32 { return math.Float32bits(v) }

func float32Bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
