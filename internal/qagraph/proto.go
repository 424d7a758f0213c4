package qagraph

import (
	"slices"

	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/x448/float16"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/internal/onnxpb"
)

// The graph as it is written: nodes in topological order, initializers
// whose bytes are streamed while the file is written (fill), the named
// inputs and outputs. Only what the builder needs of ONNX is here; the
// field numbers are package onnxpb's.

func elemSize(dt int32) int {
	switch dt {
	case onnxpb.Float:
		return 4
	case onnxpb.Int64:
		return 8
	case onnxpb.Float16:
		return 2
	}
	panic(fmt.Sprintf("qagraph: unsupported tensor data type %d", dt))
}

// attr is one NodeProto attribute; kind selects which value field is set.
type attr struct {
	name string
	kind int32
	i    int64
	f    float32
	ints []int64
}

func intAttr(name string, v int64) attr     { return attr{name: name, kind: onnxpb.AttrInt, i: v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, kind: onnxpb.AttrInts, ints: v} }
func floatAttr(name string, v float32) attr { return attr{name: name, kind: onnxpb.AttrFloat, f: v} }

type node struct {
	op, name string
	domain   string // "" for ONNX's own operators, msDomain for ONNX Runtime's
	in, out  []string
	attrs    []attr
}

// tensor is an initializer. Small constants carry their bytes in raw;
// weights carry a fill function, so a model's weights are never in memory
// as a whole: their bytes are produced while the file is written.
type tensor struct {
	name  string
	dtype int32
	dims  []int64
	raw   []byte
	fill  func(w io.Writer) error
}

func (t *tensor) byteLen() int64 {
	n := int64(elemSize(t.dtype))
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// dim is one TensorShapeProto dimension: a fixed size or a symbolic name.
type dim struct {
	value int64
	param string
}

type valueInfo struct {
	name  string
	dtype int32
	dims  []dim
}

type graph struct {
	name            string
	nodes           []node
	inits           []*tensor
	inputs, outputs []valueInfo
}

func encodeAttr(a attr) []byte {
	b := onnxpb.AppendString(nil, onnxpb.AttributeName, a.name)
	b = onnxpb.AppendVarint(b, onnxpb.AttributeType, uint64(a.kind))
	switch a.kind {
	case onnxpb.AttrInt:
		b = onnxpb.AppendVarint(b, onnxpb.AttributeI, uint64(a.i))
	case onnxpb.AttrFloat:
		b = protowire.AppendTag(b, onnxpb.AttributeF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.f))
	case onnxpb.AttrInts:
		for _, v := range a.ints {
			b = onnxpb.AppendVarint(b, onnxpb.AttributeInts, uint64(v))
		}
	}
	return b
}

func encodeNode(n node) []byte {
	var b []byte
	for _, s := range n.in {
		b = onnxpb.AppendString(b, onnxpb.NodeInput, s)
	}
	for _, s := range n.out {
		b = onnxpb.AppendString(b, onnxpb.NodeOutput, s)
	}
	b = onnxpb.AppendString(b, onnxpb.NodeName, n.name)
	b = onnxpb.AppendString(b, onnxpb.NodeOpType, n.op)
	if n.domain != "" {
		b = onnxpb.AppendString(b, onnxpb.NodeDomain, n.domain)
	}
	for _, a := range n.attrs {
		b = onnxpb.AppendMessage(b, onnxpb.NodeAttribute, encodeAttr(a))
	}
	return b
}

func encodeValueInfo(v valueInfo) []byte {
	var shape []byte
	for _, d := range v.dims {
		var db []byte
		if d.param != "" {
			db = onnxpb.AppendString(nil, onnxpb.DimParam, d.param)
		} else {
			db = onnxpb.AppendVarint(nil, onnxpb.DimValue, uint64(d.value))
		}
		shape = onnxpb.AppendMessage(shape, onnxpb.ShapeDim, db)
	}
	tt := onnxpb.AppendVarint(nil, onnxpb.TensorTypeElemType, uint64(v.dtype))
	tt = onnxpb.AppendMessage(tt, onnxpb.TensorTypeShape, shape)
	b := onnxpb.AppendString(nil, onnxpb.ValueInfoName, v.name)
	return onnxpb.AppendMessage(b, onnxpb.ValueInfoType, onnxpb.AppendMessage(nil, onnxpb.TypeProtoTensorType, tt))
}

func float32Bytes(vals ...float32) []byte {
	b := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func float16Bytes(vals ...float32) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(float16.Fromfloat32(v)))
	}
	return b
}

// halfWriter turns a stream of little-endian float32 values into float16
// ones (rounded to nearest even), as it is written.
type halfWriter struct {
	w    io.Writer
	tail []byte // the bytes of a value split between writes
	buf  []byte
}

func (h *halfWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(h.tail) > 0 {
		need := 4 - len(h.tail)
		if len(p) < need {
			h.tail = append(h.tail, p...)
			return n, nil
		}
		h.tail = append(h.tail, p[:need]...)
		p = p[need:]
		if err := h.emit(h.tail); err != nil {
			return 0, err
		}
		h.tail = h.tail[:0]
	}
	whole := len(p) / 4 * 4
	if err := h.emit(p[:whole]); err != nil {
		return 0, err
	}
	h.tail = append(h.tail, p[whole:]...)
	return n, nil
}

func (h *halfWriter) emit(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	h.buf = slices.Grow(h.buf[:0], len(p)/2)[:len(p)/2]
	for i := 0; i < len(p); i += 4 {
		f := math.Float32frombits(binary.LittleEndian.Uint32(p[i:]))
		binary.LittleEndian.PutUint16(h.buf[i/2:], uint16(float16.Fromfloat32(f)))
	}
	_, err := h.w.Write(h.buf)
	return err
}

// flush refuses a stream that ended inside a value.
func (h *halfWriter) flush() error {
	if len(h.tail) != 0 {
		return fmt.Errorf("qagraph: a weight's float32 stream ended %d bytes into a value", len(h.tail))
	}
	return nil
}

func int64Bytes(vals ...int64) []byte {
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}
