package onnxpb

import (
	"slices"
	"testing"
)

// TestAttrsRoundTrip: FLOAT, INT and INTS attributes written by EncodeNode
// read back the same, negative values included, in name order on the wire.
func TestAttrsRoundTrip(t *testing.T) {
	in := Node{Name: "n", OpType: "MultiHeadAttention", Domain: "com.microsoft", Inputs: []string{"q", "k", "v"}, Outputs: []string{"y"},
		Attrs: map[string]Attr{"scale": {Type: AttrFloat, F: 0.125}, "num_heads": {Type: AttrInt, I: 12}, "perm": {Type: AttrInts, Ints: []int64{0, -2, 1, 3}}}}
	b := EncodeNode(in)
	out, err := parseNode(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	heads, ok := out.Int("num_heads")
	perm, ok2 := out.IntList("perm")
	if !ok || heads != 12 || !ok2 || !slices.Equal(perm, []int64{0, -2, 1, 3}) || out.Attrs["scale"].F != 0.125 || out.Attrs["scale"].Type != AttrFloat {
		t.Fatalf("attributes read back %+v", out.Attrs)
	}
	if _, ok := out.Int("perm"); ok {
		t.Error("an INTS attribute read as an INT")
	}
	if out.OpType != in.OpType || out.Domain != in.Domain || !slices.Equal(out.Inputs, in.Inputs) || !slices.Equal(out.Outputs, in.Outputs) {
		t.Fatalf("node read back %+v", out)
	}
	if again := EncodeNode(*out); !slices.Equal(again, b) {
		t.Error("encoding the parsed node gave different bytes")
	}
}

// TestInt64s: an int64 tensor's values from raw_data, and a length that
// does not match the shape refused.
func TestInt64s(t *testing.T) {
	raw := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	tt, err := parseTensor(EncodeTensor("s", Int64, []int64{2}, raw))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := tt.Int64s(); err != nil || !slices.Equal(v, []int64{1, -2}) {
		t.Fatalf("Int64s = %v, %v", v, err)
	}
	bad, _ := parseTensor(EncodeTensor("s", Int64, []int64{3}, raw))
	if _, err := bad.Int64s(); err == nil {
		t.Error("16 bytes for 3 int64 values accepted")
	}
}

// TestConstantValue: a Constant node's value attribute reads as a tensor.
func TestConstantValue(t *testing.T) {
	raw := []byte{12, 0, 0, 0, 0, 0, 0, 0}
	a := AppendString(nil, AttributeName, "value")
	a = AppendMessage(a, attributeT, EncodeTensor("", Int64, []int64{1}, raw))
	a = AppendVarint(a, AttributeType, uint64(AttrTensor))
	b := AppendString(nil, NodeOutput, "heads")
	b = AppendString(b, NodeOpType, "Constant")
	b = AppendMessage(b, NodeAttribute, a)
	n, err := parseNode(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := n.Attrs["value"]
	if v.Type != AttrTensor || v.T == nil {
		t.Fatalf("value attribute %+v", v)
	}
	if got, err := v.T.Int64s(); err != nil || !slices.Equal(got, []int64{12}) {
		t.Fatalf("value %v, %v", got, err)
	}
}
