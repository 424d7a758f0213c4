package onnxpb

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

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
	neg, _ := parseTensor(EncodeTensor("q", Int8, []int64{3}, []byte{0x81, 0x00, 0x7f}))
	if q, err := neg.Int8s(); err != nil || len(q) != 3 || q[0] != -127 || q[1] != 0 || q[2] != 127 {
		t.Errorf("int8 tensor [-127, 0, 127] read as %v, %v", q, err)
	}
	if _, err := i8.Int8s(); err != nil {
		t.Errorf("int8 tensor: %v", err)
	}
	u8, _ := parseTensor(EncodeTensor("q", Uint8, []int64{4}, []byte{1, 2, 3, 4}))
	if _, err := u8.Int8s(); err == nil {
		t.Error("a uint8 tensor read as int8")
	}
	if _, err := (&Tensor{Name: "q", DataType: Int8, Dims: []int64{1}}).Int8s(); err == nil {
		t.Error("an int8 tensor without raw_data read as if it had values")
	}
}

// TestMalformed: garbage and endless nesting are errors, never panics.
func TestMalformed(t *testing.T) {
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

func mathBits(v float32) uint32 { return math.Float32bits(v) }

func float32Bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
