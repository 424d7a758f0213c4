package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Tensor is a TensorProto as an initializer: its header, and where its
// values are.
type Tensor struct {
	Field    int
	Name     string
	Dims     []int64
	DataType int32
	// External is true when the values live in a separate file
	// (data_location EXTERNAL), as in models over protobuf's 2 GB limit.
	External bool

	raw    []byte
	hasRaw bool
	floats []Field // float_data occurrences
	ints   []Field // int64_data occurrences
}

func parseTensor(b []byte) (*Tensor, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	t := &Tensor{}
	for _, f := range fs {
		switch f.Num {
		case TensorDims:
			d, err := int64s(f)
			if err != nil {
				return nil, err
			}
			t.Dims = append(t.Dims, d...)
		case TensorDataType:
			t.DataType = int32(f.Varint)
		case TensorName:
			if t.Name, err = str(f); err != nil {
				return nil, err
			}
		case TensorRawData:
			t.raw, t.hasRaw = f.Data, true
		case TensorFloatData:
			t.floats = append(t.floats, f)
		case TensorInt64Data:
			t.ints = append(t.ints, f)
		case TensorDataLocation:
			t.External = f.Type == protowire.VarintType && f.Varint == 1
		}
	}
	return t, nil
}

// Elements is the product of the dimensions (1 for a scalar).
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Float32s returns the values of a float32 tensor stored in the file, from
// raw_data (little-endian, as ONNX specifies) or float_data.
func (t *Tensor) Float32s() ([]float32, error) {
	return values(t, Float, "float32", t.floats, float32s, func(b []byte) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	})
}

// Int64s returns the values of an int64 tensor stored in the file (shapes,
// axes), from raw_data or int64_data.
func (t *Tensor) Int64s() ([]int64, error) {
	return values(t, Int64, "int64", t.ints, int64s, func(b []byte) int64 {
		return int64(binary.LittleEndian.Uint64(b))
	})
}

// Int8s returns the values of an int8 tensor stored in raw_data, as
// quantizers write them (int32_data, the spec's other place for int8, is
// refused with an error).
func (t *Tensor) Int8s() ([]int8, error) {
	if t.DataType == Int8 && !t.hasRaw && !t.External {
		return nil, fmt.Errorf("tensor %q keeps its int8 values outside raw_data", t.Name)
	}
	return values(t, Int8, "int8", nil, nil, func(b []byte) int8 { return int8(b[0]) })
}

// values decodes a tensor of data type dtype (named name) from raw_data,
// each value from its own little-endian bytes, or from the occurrences of
// its typed repeated field, checking the count against the shape.
func values[T any](t *Tensor, dtype int32, name string, typed []Field, parse func(Field) ([]T, error), fromRaw func([]byte) T) ([]T, error) {
	if t.DataType != dtype {
		return nil, fmt.Errorf("tensor %q has data type %d, not %s", t.Name, t.DataType, name)
	}
	if t.External {
		return nil, fmt.Errorf("tensor %q keeps its values in an external file", t.Name)
	}
	if slices.ContainsFunc(t.Dims, func(d int64) bool { return d < 0 }) {
		return nil, fmt.Errorf("%w: tensor %q has a negative dimension", ErrMalformed, t.Name)
	}
	want, size := t.Elements(), int64(binary.Size(*new(T)))
	if t.hasRaw {
		if int64(len(t.raw)) != size*want {
			return nil, fmt.Errorf("%w: tensor %q holds %d bytes, its shape %v needs %d", ErrMalformed, t.Name, len(t.raw), t.Dims, size*want)
		}
		out := make([]T, want)
		for i := range out {
			out[i] = fromRaw(t.raw[size*int64(i):])
		}
		return out, nil
	}
	var out []T
	for _, f := range typed {
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	if int64(len(out)) != want {
		return nil, fmt.Errorf("%w: tensor %q holds %d values, its shape %v needs %d", ErrMalformed, t.Name, len(out), t.Dims, want)
	}
	return out, nil
}

// EncodeTensor encodes a TensorProto with its values in raw_data.
func EncodeTensor(name string, dtype int32, dims []int64, raw []byte) []byte {
	return append(AppendTensorHeader(nil, name, dtype, dims, len(raw)), raw...)
}

// AppendTensorHeader appends every field of a TensorProto but the payload
// of raw_data, whose tag and length of rawLen bytes come last: the rawLen
// bytes that follow complete it (a writer can stream them).
func AppendTensorHeader(b []byte, name string, dtype int32, dims []int64, rawLen int) []byte {
	for _, d := range dims {
		b = AppendVarint(b, TensorDims, uint64(d))
	}
	b = AppendVarint(b, TensorDataType, uint64(dtype))
	b = AppendString(b, TensorName, name)
	b = protowire.AppendTag(b, TensorRawData, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(rawLen))
}

// EncodeNode encodes a NodeProto with its FLOAT, INT and INTS attributes
// (tensor attributes are not written).
func EncodeNode(n Node) []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = AppendString(b, NodeInput, s)
	}
	for _, s := range n.Outputs {
		b = AppendString(b, NodeOutput, s)
	}
	if n.Name != "" {
		b = AppendString(b, NodeName, n.Name)
	}
	b = AppendString(b, NodeOpType, n.OpType)
	b = encodeAttrs(b, n.Attrs)
	if n.Domain != "" {
		b = AppendString(b, NodeDomain, n.Domain)
	}
	return b
}

// EncodeOpset encodes an OperatorSetIdProto.
func EncodeOpset(o Opset) []byte {
	b := AppendString(nil, OpsetDomain, o.Domain)
	return AppendVarint(b, OpsetVersion, uint64(o.Version))
}

// EncodeEntry encodes a StringStringEntryProto (metadata_props).
func EncodeEntry(key, value string) []byte {
	b := AppendString(nil, EntryKey, key)
	return AppendString(b, EntryValue, value)
}
