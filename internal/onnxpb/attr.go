package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// AttributeProto fields and AttributeType values this package reads and
// writes (graph-valued attributes are read as Node.Subgraphs).
const (
	AttributeName protowire.Number = 1
	AttributeF    protowire.Number = 2
	AttributeI    protowire.Number = 3
	attributeT    protowire.Number = 5
	AttributeInts protowire.Number = 8
	AttributeType protowire.Number = 20
	AttrFloat     int32            = 1
	AttrInt       int32            = 2
	AttrTensor    int32            = 4
	AttrInts      int32            = 7
)

// Attr is a scalar, integer-list or tensor attribute of a node: Type says
// which of F, I, Ints and T holds its value (a Constant node's value is a
// tensor). Tensor attributes are read, never written.
type Attr struct {
	Type int32
	F    float32
	I    int64
	Ints []int64
	T    *Tensor
}

// Int returns an INT attribute; ok is false when the node has no such
// attribute of that type.
func (n *Node) Int(name string) (int64, bool) {
	a, ok := n.Attrs[name]
	return a.I, ok && a.Type == AttrInt
}

// IntList returns an INTS attribute.
func (n *Node) IntList(name string) ([]int64, bool) {
	a, ok := n.Attrs[name]
	return a.Ints, ok && a.Type == AttrInts
}

// parseAttr decodes one AttributeProto: its name and, for FLOAT, INT, INTS
// and TENSOR attributes, its value (other kinds keep only their type).
func parseAttr(b []byte) (string, Attr, error) {
	fs, err := fields(b)
	if err != nil {
		return "", Attr{}, err
	}
	var name string
	var a Attr
	for _, f := range fs {
		switch f.Num {
		case AttributeName:
			if name, err = str(f); err != nil {
				return "", Attr{}, err
			}
		case AttributeType:
			a.Type = int32(f.Varint)
		case AttributeI:
			a.I = int64(f.Varint)
		case AttributeF:
			if f.Type != protowire.Fixed32Type {
				return "", Attr{}, fmt.Errorf("%w: float attribute of wire type %d", ErrMalformed, f.Type)
			}
			a.F = math.Float32frombits(binary.LittleEndian.Uint32(f.Raw[len(f.Raw)-4:]))
		case AttributeInts:
			v, err := int64s(f)
			if err != nil {
				return "", Attr{}, err
			}
			a.Ints = append(a.Ints, v...)
		case attributeT:
			if f.Type != protowire.BytesType {
				return "", Attr{}, fmt.Errorf("%w: tensor attribute of wire type %d", ErrMalformed, f.Type)
			}
			if a.T, err = parseTensor(f.Data); err != nil {
				return "", Attr{}, err
			}
		}
	}
	return name, a, nil
}

// encodeAttrs appends a node's attributes, by name so the bytes are stable.
func encodeAttrs(b []byte, attrs map[string]Attr) []byte {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		a := attrs[name]
		m := AppendString(nil, AttributeName, name)
		switch a.Type {
		case AttrFloat:
			m = protowire.AppendTag(m, AttributeF, protowire.Fixed32Type)
			m = protowire.AppendFixed32(m, math.Float32bits(a.F))
		case AttrInt:
			m = AppendVarint(m, AttributeI, uint64(a.I))
		case AttrInts:
			for _, v := range a.Ints {
				m = AppendVarint(m, AttributeInts, uint64(v))
			}
		}
		m = AppendVarint(m, AttributeType, uint64(a.Type))
		b = AppendMessage(b, NodeAttribute, m)
	}
	return b
}
