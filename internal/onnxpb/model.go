package onnxpb

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of onnx/onnx.proto (IR version 10) that this package
// reads or writes; every other field is carried through untouched.
const (
	ModelIRVersion       protowire.Number = 1
	ModelProducerName    protowire.Number = 2
	ModelProducerVersion protowire.Number = 3
	ModelGraph           protowire.Number = 7
	ModelOpsetImport     protowire.Number = 8
	ModelMetadataProps   protowire.Number = 14

	OpsetDomain  protowire.Number = 1
	OpsetVersion protowire.Number = 2

	EntryKey   protowire.Number = 1
	EntryValue protowire.Number = 2

	GraphNode        protowire.Number = 1
	GraphName        protowire.Number = 2
	GraphInitializer protowire.Number = 5
	GraphInput       protowire.Number = 11
	GraphOutput      protowire.Number = 12
	GraphValueInfo   protowire.Number = 13

	NodeInput     protowire.Number = 1
	NodeOutput    protowire.Number = 2
	NodeName      protowire.Number = 3
	NodeOpType    protowire.Number = 4
	NodeAttribute protowire.Number = 5
	NodeDomain    protowire.Number = 7

	attrGraph  protowire.Number = 6
	attrGraphs protowire.Number = 11

	TensorDims         protowire.Number = 1
	TensorDataType     protowire.Number = 2
	TensorFloatData    protowire.Number = 4
	TensorInt64Data    protowire.Number = 7
	TensorName         protowire.Number = 8
	TensorRawData      protowire.Number = 9
	TensorDataLocation protowire.Number = 14

	ValueInfoName protowire.Number = 1
	ValueInfoType protowire.Number = 2

	TypeProtoTensorType protowire.Number = 1 // TypeProto.tensor_type
	TensorTypeElemType  protowire.Number = 1 // TypeProto.Tensor.elem_type
	TensorTypeShape     protowire.Number = 2
	ShapeDim            protowire.Number = 1 // TensorShapeProto.dim
	DimValue            protowire.Number = 1
	DimParam            protowire.Number = 2
)

// TensorProto.DataType values this project names.
const (
	Float   int32 = 1
	Uint8   int32 = 2
	Int8    int32 = 3
	Int32   int32 = 6
	Int64   int32 = 7
	Float16 int32 = 10
)

// maxDepth bounds nested subgraphs (If, Loop, Scan) so a hostile file
// cannot exhaust the stack.
const maxDepth = 64

// Model is a ModelProto: its fields in file order, and what was decoded.
type Model struct {
	Fields    []Field
	GraphAt   int // index of the graph in Fields; -1 when there is none
	IRVersion int64
	Opsets    []Opset
	Metadata  map[string]string
	Graph     *Graph
}

// Opset is one opset_import entry; "" is the default domain (ai.onnx).
type Opset struct {
	Domain  string
	Version int64
}

// Graph is a GraphProto. Nodes, initializers and named values keep the
// index of the field they were decoded from.
type Graph struct {
	Fields       []Field
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []Named
	Outputs      []Named
	ValueInfos   []Named
}

// Named is a ValueInfoProto by its name.
type Named struct {
	Field int
	Name  string
}

// Parse decodes a ModelProto. The result points into b.
func Parse(b []byte) (*Model, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	m := &Model{Fields: fs, GraphAt: -1, Metadata: map[string]string{}}
	for i, f := range fs {
		switch {
		case f.Num == ModelIRVersion && f.Type == protowire.VarintType:
			m.IRVersion = int64(f.Varint)
		case f.Num == ModelOpsetImport && f.Type == protowire.BytesType:
			o, err := parseOpset(f.Data)
			if err != nil {
				return nil, err
			}
			m.Opsets = append(m.Opsets, o)
		case f.Num == ModelMetadataProps && f.Type == protowire.BytesType:
			k, v, err := parseEntry(f.Data)
			if err != nil {
				return nil, err
			}
			m.Metadata[k] = v
		case f.Num == ModelGraph && f.Type == protowire.BytesType:
			if m.Graph, err = parseGraph(f.Data, 0); err != nil {
				return nil, fmt.Errorf("graph: %w", err)
			}
			m.GraphAt = i
		}
	}
	return m, nil
}

// OpsetVersion is the imported version of a domain ("" and "ai.onnx" are
// the same domain).
func (m *Model) OpsetVersion(domain string) (int64, bool) {
	for _, o := range m.Opsets {
		if canonDomain(o.Domain) == canonDomain(domain) {
			return o.Version, true
		}
	}
	return 0, false
}

func canonDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// Walk calls fn for every node of g and of its subgraphs, depth first.
func (g *Graph) Walk(fn func(*Node)) {
	for _, n := range g.Nodes {
		fn(n)
		for _, s := range n.Subgraphs {
			s.Walk(fn)
		}
	}
}

func parseOpset(b []byte) (Opset, error) {
	fs, err := fields(b)
	if err != nil {
		return Opset{}, fmt.Errorf("opset_import: %w", err)
	}
	var o Opset
	for _, f := range fs {
		switch {
		case f.Num == OpsetDomain:
			if o.Domain, err = str(f); err != nil {
				return o, err
			}
		case f.Num == OpsetVersion && f.Type == protowire.VarintType:
			o.Version = int64(f.Varint)
		}
	}
	return o, nil
}

func parseEntry(b []byte) (string, string, error) {
	fs, err := fields(b)
	if err != nil {
		return "", "", fmt.Errorf("metadata_props: %w", err)
	}
	var k, v string
	for _, f := range fs {
		switch f.Num {
		case EntryKey:
			k, err = str(f)
		case EntryValue:
			v, err = str(f)
		}
		if err != nil {
			return "", "", err
		}
	}
	return k, v, nil
}

func parseGraph(b []byte, depth int) (*Graph, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: subgraphs nested deeper than %d", ErrMalformed, maxDepth)
	}
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	g := &Graph{Fields: fs}
	for i, f := range fs {
		if f.Type != protowire.BytesType {
			continue
		}
		switch f.Num {
		case GraphNode:
			n, err := parseNode(f.Data, depth)
			if err != nil {
				return nil, fmt.Errorf("node %d: %w", len(g.Nodes), err)
			}
			n.Field = i
			g.Nodes = append(g.Nodes, n)
		case GraphInitializer:
			t, err := parseTensor(f.Data)
			if err != nil {
				return nil, fmt.Errorf("initializer %d: %w", len(g.Initializers), err)
			}
			t.Field = i
			g.Initializers = append(g.Initializers, t)
		case GraphInput, GraphOutput, GraphValueInfo:
			name, err := firstString(f.Data, ValueInfoName)
			if err != nil {
				return nil, err
			}
			v := Named{Field: i, Name: name}
			switch f.Num {
			case GraphInput:
				g.Inputs = append(g.Inputs, v)
			case GraphOutput:
				g.Outputs = append(g.Outputs, v)
			default:
				g.ValueInfos = append(g.ValueInfos, v)
			}
		}
	}
	return g, nil
}

func firstString(b []byte, num protowire.Number) (string, error) {
	fs, err := fields(b)
	if err != nil {
		return "", err
	}
	for _, f := range fs {
		if f.Num == num {
			return str(f)
		}
	}
	return "", nil
}
