package testmodel

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/onnxpb"
)

// Field numbers of onnx/onnx.proto (IR version 8). Only the fields this
// package writes are listed; every one was checked by loading the result in
// ONNX Runtime, which rejects or misreads a model on any mistake here.
const (
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelGraph           = 7
	modelOpsetImport     = 8

	opsetDomain  = 1
	opsetVersion = 2

	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12

	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5

	attrName = 1
	attrF    = 2
	attrI    = 3
	attrInts = 8
	attrType = 20

	tensorDims     = 1
	tensorDataType = 2
	tensorName     = 8
	tensorRawData  = 9

	valueInfoName = 1
	valueInfoType = 2

	typeProtoTensor = 1
	tensorTypeElem  = 1
	tensorTypeShape = 2
	shapeDim        = 1
	dimValue        = 1
	dimParam        = 2
)

// AttributeProto.AttributeType values.
const (
	attrTypeFloat = 1
	attrTypeInt   = 2
	attrTypeInts  = 7
)

// TensorProto.DataType values.
const (
	dtFloat   int32 = 1
	dtInt64   int32 = 7
	dtFloat16 int32 = 10
)

func elemSize(dt int32) int {
	switch dt {
	case dtFloat:
		return 4
	case dtInt64:
		return 8
	case dtFloat16:
		return 2
	}
	panic(fmt.Sprintf("testmodel: unsupported tensor data type %d", dt))
}

// attr is one NodeProto attribute; kind selects which value field is set.
type attr struct {
	name string
	kind int
	i    int64
	f    float32
	ints []int64
}

func intAttr(name string, v int64) attr     { return attr{name: name, kind: attrTypeInt, i: v} }
func floatAttr(name string, v float32) attr { return attr{name: name, kind: attrTypeFloat, f: v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, kind: attrTypeInts, ints: v} }

type node struct {
	op, name string
	in, out  []string
	attrs    []attr
}

// tensor is an initializer. Small constants carry their bytes in raw; large
// weights carry a fill function so that a 440 MB model never sits in memory:
// its bytes are generated while the file is written.
type tensor struct {
	name  string
	dtype int32
	dims  []int64
	raw   []byte
	fill  func(w io.Writer) error
}

func (t *tensor) byteLen() int {
	n := elemSize(t.dtype)
	for _, d := range t.dims {
		n *= int(d)
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
	b := onnxpb.AppendString(nil, attrName, a.name)
	b = onnxpb.AppendVarint(b, attrType, uint64(a.kind))
	switch a.kind {
	case attrTypeInt:
		b = onnxpb.AppendVarint(b, attrI, uint64(a.i))
	case attrTypeFloat:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.f))
	case attrTypeInts:
		for _, v := range a.ints {
			b = onnxpb.AppendVarint(b, attrInts, uint64(v))
		}
	}
	return b
}

func encodeNode(n node) []byte {
	var b []byte
	for _, s := range n.in {
		b = onnxpb.AppendString(b, nodeInput, s)
	}
	for _, s := range n.out {
		b = onnxpb.AppendString(b, nodeOutput, s)
	}
	b = onnxpb.AppendString(b, nodeName, n.name)
	b = onnxpb.AppendString(b, nodeOpType, n.op)
	for _, a := range n.attrs {
		b = onnxpb.AppendMessage(b, nodeAttribute, encodeAttr(a))
	}
	return b
}

func encodeValueInfo(v valueInfo) []byte {
	var shape []byte
	for _, d := range v.dims {
		var db []byte
		if d.param != "" {
			db = onnxpb.AppendString(nil, dimParam, d.param)
		} else {
			db = onnxpb.AppendVarint(nil, dimValue, uint64(d.value))
		}
		shape = onnxpb.AppendMessage(shape, shapeDim, db)
	}
	tt := onnxpb.AppendVarint(nil, tensorTypeElem, uint64(v.dtype))
	tt = onnxpb.AppendMessage(tt, tensorTypeShape, shape)
	b := onnxpb.AppendString(nil, valueInfoName, v.name)
	return onnxpb.AppendMessage(b, valueInfoType, onnxpb.AppendMessage(nil, typeProtoTensor, tt))
}

func float32Bytes(vals ...float32) []byte {
	b := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func int64Bytes(vals ...int64) []byte {
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}
