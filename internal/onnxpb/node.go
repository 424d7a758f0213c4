package onnxpb

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Node is a NodeProto; Subgraphs are the graphs of its attributes.
type Node struct {
	Field           int
	Inputs, Outputs []string
	Name, OpType    string
	Domain          string
	Attrs           map[string]Attr // FLOAT, INT, INTS and TENSOR attributes (others: type only)
	Subgraphs       []*Graph
}

// DefaultDomain reports whether the node is a standard ONNX operator.
func (n *Node) DefaultDomain() bool { return canonDomain(n.Domain) == "" }

func parseNode(b []byte, depth int) (*Node, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	n := &Node{}
	for _, f := range fs {
		var s string
		switch f.Num {
		case NodeInput, NodeOutput, NodeName, NodeOpType, NodeDomain:
			if s, err = str(f); err != nil {
				return nil, err
			}
		}
		switch f.Num {
		case NodeInput:
			n.Inputs = append(n.Inputs, s)
		case NodeOutput:
			n.Outputs = append(n.Outputs, s)
		case NodeName:
			n.Name = s
		case NodeOpType:
			n.OpType = s
		case NodeDomain:
			n.Domain = s
		case NodeAttribute:
			if f.Type != protowire.BytesType {
				return nil, fmt.Errorf("%w: attribute of wire type %d", ErrMalformed, f.Type)
			}
			gs, err := attributeGraphs(f.Data, depth)
			if err != nil {
				return nil, err
			}
			n.Subgraphs = append(n.Subgraphs, gs...)
			name, a, err := parseAttr(f.Data)
			if err != nil {
				return nil, err
			}
			if n.Attrs == nil {
				n.Attrs = map[string]Attr{}
			}
			n.Attrs[name] = a
		}
	}
	return n, nil
}

func attributeGraphs(b []byte, depth int) ([]*Graph, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	var out []*Graph
	for _, f := range fs {
		if (f.Num == attrGraph || f.Num == attrGraphs) && f.Type == protowire.BytesType {
			g, err := parseGraph(f.Data, depth+1)
			if err != nil {
				return nil, fmt.Errorf("subgraph: %w", err)
			}
			out = append(out, g)
		}
	}
	return out, nil
}
