package quantize

import (
	"fmt"
	"io"
	"slices"

	"qa-shard/internal/onnxpb"
)

// plan is what the rewrite of one graph decided.
type plan struct {
	g       *onnxpb.Graph
	inits   map[string]*onnxpb.Tensor
	uses    map[string]int // node inputs naming a value, subgraphs included
	inputs  map[string]bool
	outputs map[string]bool
	taken   map[string]bool // every name in the graph, for fresh names

	fused   map[int]onnxpb.Node // node field index -> the node replacing it
	dropped map[int]bool        // node field indices of folded Adds
	gone    map[string]bool     // values no node produces any more
	weights map[string]*weight  // float weight name -> its int8 form
	orphans map[string]bool     // initializers only removed nodes read
	scheme  Scheme
	rep     Report
}

// weight is one float32 [K, N] initializer and its quantized tensors.
type weight struct {
	src                 *onnxpb.Tensor
	q, scale, zero      string
	data, scales, zero8 []byte
	dims                []int64
	users               int // rewritten MatMuls reading it
}

func newPlan(g *onnxpb.Graph) *plan {
	p := &plan{g: g, inits: map[string]*onnxpb.Tensor{}, uses: map[string]int{}, inputs: map[string]bool{},
		outputs: map[string]bool{}, taken: map[string]bool{}, fused: map[int]onnxpb.Node{},
		dropped: map[int]bool{}, gone: map[string]bool{}, weights: map[string]*weight{}, orphans: map[string]bool{}}
	for _, t := range g.Initializers {
		p.inits[t.Name] = t
		p.taken[t.Name] = true
	}
	for _, v := range g.Inputs {
		p.inputs[v.Name], p.taken[v.Name] = true, true
	}
	for _, v := range g.Outputs {
		p.outputs[v.Name], p.taken[v.Name] = true, true
	}
	for _, v := range g.ValueInfos {
		p.taken[v.Name] = true
	}
	g.Walk(func(n *onnxpb.Node) {
		for _, s := range n.Inputs {
			p.uses[s]++
			p.taken[s] = true
		}
		for _, s := range n.Outputs {
			p.taken[s] = true
		}
	})
	return p
}

// fresh returns an unused value name starting with base.
func (p *plan) fresh(base string) string {
	name := base
	for i := 1; p.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	p.taken[name] = true
	return name
}

// constant is a float32 initializer the graph cannot override at run time.
func (p *plan) constant(name string, rank int) *onnxpb.Tensor {
	t := p.inits[name]
	if t == nil || p.inputs[name] || t.DataType != onnxpb.Float || len(t.Dims) != rank {
		return nil
	}
	return t
}

// matmuls rewrites every eligible MatMul of the top-level graph; why
// counts the reasons the others stay float32.
func (p *plan) matmuls() (total int, why map[string]int, err error) {
	why = map[string]int{}
	consumers := map[string][]*onnxpb.Node{}
	for _, n := range p.g.Nodes {
		for _, s := range n.Inputs {
			consumers[s] = append(consumers[s], n)
		}
	}
	for _, n := range p.g.Nodes {
		if n.OpType != "MatMul" || !n.DefaultDomain() || p.dropped[n.Field] {
			continue
		}
		total++
		if len(n.Inputs) != 2 || len(n.Outputs) != 1 {
			why["malformed"]++
			continue
		}
		w := p.constant(n.Inputs[1], 2)
		if w == nil {
			why[p.reason(n.Inputs[1])]++
			continue
		}
		q, err := p.weight(w)
		if err != nil {
			return total, why, err
		}
		node := onnxpb.Node{Name: n.Name, OpType: "DynamicQuantizeMatMul", Domain: msDomain,
			Inputs: []string{n.Inputs[0], q.q, q.scale, q.zero}, Outputs: n.Outputs}
		if add, bias := p.foldable(n, consumers, w.Dims[1]); add != nil {
			node.Inputs = append(node.Inputs, bias)
			node.Outputs = add.Outputs
			p.dropped[add.Field] = true
			p.gone[n.Outputs[0]] = true
			p.rep.Folded++
		}
		p.fused[n.Field] = node
		q.users++
		p.rep.MatMuls++
	}
	return total, why, nil
}

// reason names why a MatMul's second input is not a weight to quantize.
func (p *plan) reason(name string) string {
	t := p.inits[name]
	switch {
	case t == nil:
		return "second input computed"
	case p.inputs[name]:
		return "weight overridable as a graph input"
	case t.DataType == onnxpb.Float16:
		return "float16 weight"
	case t.DataType != onnxpb.Float:
		return fmt.Sprintf("weight of data type %d", t.DataType)
	}
	return fmt.Sprintf("weight of rank %d", len(t.Dims))
}

// weight quantizes an initializer once, however many MatMuls read it.
func (p *plan) weight(t *onnxpb.Tensor) (*weight, error) {
	if q := p.weights[t.Name]; q != nil {
		return q, nil
	}
	k, n := t.Dims[0], t.Dims[1]
	if k <= 0 || n <= 0 {
		return nil, fmt.Errorf("%w: weight %q has shape %v", ErrUnsupported, t.Name, t.Dims)
	}
	vals, err := t.Float32s()
	if err != nil {
		return nil, fmt.Errorf("%w: weight %q: %w", ErrUnsupported, t.Name, err)
	}
	data, scales, err := columns(vals, int(k), int(n), p.scheme)
	if err != nil {
		return nil, fmt.Errorf("%w: weight %q: %w", ErrUnsupported, t.Name, err)
	}
	zero := make([]byte, n)
	for i := range zero {
		zero[i] = p.scheme.zeroPoint()
	}
	q := &weight{src: t, dims: t.Dims, data: data, scales: float32Bytes(scales), zero8: zero,
		q: p.fresh(t.Name + "_quantized"), scale: p.fresh(t.Name + "_scale"), zero: p.fresh(t.Name + "_zero_point")}
	p.weights[t.Name] = q
	p.rep.Weights += k * n
	return q, nil
}

// foldable returns the Add that only adds a float32 [n] bias to the
// MatMul's output, and that bias; nil when there is none to fold.
func (p *plan) foldable(mm *onnxpb.Node, consumers map[string][]*onnxpb.Node, n int64) (*onnxpb.Node, string) {
	y := mm.Outputs[0]
	cs := consumers[y]
	if len(cs) != 1 || p.uses[y] != 1 || p.outputs[y] {
		return nil, "" // read elsewhere too, or in a subgraph
	}
	add := cs[0]
	if add.OpType != "Add" || !add.DefaultDomain() || len(add.Inputs) != 2 || len(add.Outputs) != 1 || p.dropped[add.Field] {
		return nil, ""
	}
	bias := add.Inputs[0]
	if bias == y {
		bias = add.Inputs[1]
	}
	if bias == y || !slices.Contains(add.Inputs, y) {
		return nil, ""
	}
	if t := p.constant(bias, 1); t == nil || t.Dims[0] != n {
		return nil, ""
	}
	return add, bias
}

// rewrite turns a serialized ModelProto into the quantized one.
func rewrite(model []byte, o Options) (onnxpb.Pieces, Report, error) {
	if o.Scheme == "" {
		o.Scheme = Schemes[0]
	}
	if !o.Scheme.valid() {
		return nil, Report{}, fmt.Errorf("%w: no weight scheme %q: choose s7 (the default, right on every x86 CPU), s8 (CPUs with VNNI or AMX) or u8", ErrUnsupported, o.Scheme)
	}
	m, err := onnxpb.Parse(model)
	if err != nil {
		return nil, Report{}, fmt.Errorf("%w: model.onnx cannot be read as ONNX: %w", ErrUnsupported, err)
	}
	if err := check(m); err != nil {
		return nil, Report{}, err
	}
	p := newPlan(m.Graph)
	p.scheme = o.Scheme
	if opset, _ := m.OpsetVersion(""); !o.KeepAttention {
		p.attention(opset)
	}
	total, why, err := p.matmuls()
	if err != nil {
		return nil, p.rep, err
	}
	if p.rep.MatMuls == 0 {
		return nil, p.rep, nothingToDo(total, why)
	}
	p.rep.Float = total - p.rep.MatMuls
	var out onnxpb.Pieces
	for i, f := range m.Fields {
		if i == m.GraphAt {
			out.AddMessage(onnxpb.ModelGraph, p.graph())
			continue
		}
		out.Add(f.Raw)
	}
	if _, ok := m.OpsetVersion(msDomain); !ok {
		out.Add(onnxpb.AppendMessage(nil, onnxpb.ModelOpsetImport, onnxpb.EncodeOpset(onnxpb.Opset{Domain: msDomain, Version: 1})))
	}
	note := fmt.Sprintf("dynamic int8: %d MatMul weights %s in %s DynamicQuantizeMatMul, %d biases folded; %s; activations are quantized per tensor at run time, so run one unpadded window per batch",
		p.rep.MatMuls, o.Scheme.describe(), msDomain, p.rep.Folded, describeAttention(p.rep.Attention, o.KeepAttention))
	out.Add(onnxpb.AppendMessage(nil, onnxpb.ModelMetadataProps, onnxpb.EncodeEntry(MetadataKey, note)))
	return out, p.rep, nil
}

// graph writes the top-level graph with the plan applied: rewritten nodes
// in place of the MatMuls, folded Adds gone, each quantized weight in place
// of its float32 original (kept as well if something else reads it), and
// the value infos of values that no longer exist dropped.
func (p *plan) graph() onnxpb.Pieces {
	names := map[int]string{}
	for _, v := range p.g.ValueInfos {
		names[v.Field] = v.Name
	}
	inits := map[int]*onnxpb.Tensor{}
	for _, t := range p.g.Initializers {
		inits[t.Field] = t
	}
	var out onnxpb.Pieces
	for i, f := range p.g.Fields {
		switch {
		case p.dropped[i]:
		case f.Num == onnxpb.GraphNode && p.fused[i].OpType != "":
			out.Add(onnxpb.AppendMessage(nil, onnxpb.GraphNode, onnxpb.EncodeNode(p.fused[i])))
		case f.Num == onnxpb.GraphValueInfo && p.gone[names[i]]:
		case f.Num == onnxpb.GraphInitializer && inits[i] != nil && p.orphans[inits[i].Name]:
		case f.Num == onnxpb.GraphInitializer && inits[i] != nil && p.weights[inits[i].Name] != nil:
			q := p.weights[inits[i].Name]
			if p.uses[q.src.Name] > q.users || p.outputs[q.src.Name] {
				out.Add(f.Raw)
			}
			out.Add(onnxpb.AppendMessage(nil, onnxpb.GraphInitializer, onnxpb.EncodeTensor(q.q, p.scheme.dataType(), q.dims, q.data)),
				onnxpb.AppendMessage(nil, onnxpb.GraphInitializer, onnxpb.EncodeTensor(q.scale, onnxpb.Float, q.dims[1:], q.scales)),
				onnxpb.AppendMessage(nil, onnxpb.GraphInitializer, onnxpb.EncodeTensor(q.zero, p.scheme.dataType(), q.dims[1:], q.zero8)))
		default:
			out.Add(f.Raw)
		}
	}
	return out
}

// rewriteModel rewrites the ModelProto in model and writes the quantized model to
// w. A model it cannot quantize is refused with ErrUnsupported before
// anything is written.
func rewriteModel(model []byte, w io.Writer, o Options) (Report, error) {
	pieces, rep, err := rewrite(model, o)
	if err != nil {
		return rep, err
	}
	n, err := pieces.WriteTo(w)
	rep.InBytes, rep.OutBytes = int64(len(model)), n
	return rep, err
}
