package quantize

import (
	"slices"

	"qa-shard/internal/onnxpb"
)

// matcher reads the graph around a candidate attention core.
type matcher struct {
	p         *plan
	producer  map[string]*onnxpb.Node
	consumers map[string][]*onnxpb.Node
}

// from returns the standard operator of type op that produces value, if
// value is read by nothing else (it disappears in the fusion).
func (m matcher) from(value, op string) *onnxpb.Node {
	n := m.producer[value]
	if n == nil || n.OpType != op || !n.DefaultDomain() || len(n.Outputs) != 1 || m.p.dropped[n.Field] || !m.private(value) {
		return nil
	}
	return n
}

// private: value has one reader, in the top-level graph, and is no output.
func (m matcher) private(value string) bool {
	return len(m.consumers[value]) == 1 && m.p.uses[value] == 1 && !m.p.outputs[value]
}

// only returns value's single reader if it is the standard operator op.
func (m matcher) only(value, op string) *onnxpb.Node {
	if !m.private(value) {
		return nil
	}
	n := m.consumers[value][0]
	if n.OpType != op || !n.DefaultDomain() || len(n.Outputs) != 1 || m.p.dropped[n.Field] {
		return nil
	}
	return n
}

// heads reads value = Transpose(perm)(Reshape(x, [_, _, heads, size])):
// x split into heads. It returns x, the nodes and the split.
func (m matcher) heads(value string, perm ...int64) (string, []*onnxpb.Node, [2]int64, bool) {
	t := m.from(value, "Transpose")
	if t == nil || len(t.Inputs) != 1 {
		return "", nil, [2]int64{}, false
	}
	if got, ok := t.IntList("perm"); !ok || !slices.Equal(got, perm) {
		return "", nil, [2]int64{}, false
	}
	r := m.from(t.Inputs[0], "Reshape")
	if r == nil || len(r.Inputs) != 2 {
		return "", nil, [2]int64{}, false
	}
	shape := m.ints(r.Inputs[1])
	if len(shape) != 4 || shape[0] > 0 || shape[1] > 0 || shape[2] <= 0 || shape[3] <= 0 {
		return "", nil, [2]int64{}, false
	}
	return r.Inputs[0], []*onnxpb.Node{r, t}, [2]int64{shape[2], shape[3]}, true
}

// constant is the tensor a value always holds: an initializer the graph
// cannot override, or the value of a Constant node; nil otherwise.
func (m matcher) constant(name string) *onnxpb.Tensor {
	if t := m.p.inits[name]; t != nil {
		if m.p.inputs[name] {
			return nil
		}
		return t
	}
	if n := m.producer[name]; n != nil && n.OpType == "Constant" && n.DefaultDomain() {
		return n.Attrs["value"].T
	}
	return nil
}

// ints is a shape: a constant int64 tensor's values, or those of a Concat
// of one-element pieces as exporters build shapes with dynamic axes, a
// computed piece (a batch or sequence size taken from a Shape) as -1.
// nil when it is neither.
func (m matcher) ints(name string) []int64 {
	if t := m.constant(name); t != nil {
		v, err := t.Int64s()
		if err != nil {
			return nil
		}
		return v
	}
	c := m.producer[name]
	if c == nil || c.OpType != "Concat" || !c.DefaultDomain() {
		return nil
	}
	if axis, _ := c.Int("axis"); axis != 0 {
		return nil
	}
	var out []int64
	for _, in := range c.Inputs {
		t := m.constant(in)
		if t == nil {
			out = append(out, -1)
			continue
		}
		v, err := t.Int64s()
		if err != nil || len(v) != 1 {
			return nil
		}
		out = append(out, v[0])
	}
	return out
}

// scalar is a constant float32 tensor holding one value.
func (m matcher) scalar(name string) (float32, bool) {
	t := m.constant(name)
	if t == nil || t.DataType != onnxpb.Float || t.Elements() != 1 {
		return 0, false
	}
	v, err := t.Float32s()
	if err != nil || len(v) != 1 {
		return 0, false
	}
	return v[0], true
}
