package quantize

import (
	"fmt"
	"slices"

	"qa-shard/internal/onnxpb"
)

// The attention core of an int8 model is float32 whatever the weights
// are: Q x K^T and the weighted sum of V multiply activations by
// activations. Left as exported (MatMul, scale, mask Add, Softmax, MatMul,
// transposes), it takes about 40% of an int8 BERT's time on a 256-wide
// model at 384 tokens. ONNX Runtime's com.microsoft MultiHeadAttention
// runs the same arithmetic as one flash-attention kernel on the CPU, which
// never writes the [heads, seq, seq] scores out, but only without a
// padding mask. An int8 model made here runs one unpadded window per
// batch (its activation scales require it), so the mask is all ones and
// dropping it changes nothing: attention fuses each block it recognizes
// into MultiHeadAttention without a mask. The head shapes may be constant
// or, as exports with dynamic axes build them, a Concat of sizes taken
// from Shape and constant head counts; constants may be initializers or
// Constant nodes (match.go).

// block is one self-attention core matched in the graph.
type block struct {
	q, k, v string         // the projections, [batch, seq, hidden]
	out     *onnxpb.Node   // the Reshape back to [batch, seq, hidden]
	nodes   []*onnxpb.Node // everything the fused node replaces, out included
	heads   int64
	scale   float32
}

// attention fuses every recognized attention core; opset is the model's
// standard opset (Softmax's default axis depends on it).
func (p *plan) attention(opset int64) {
	producer := map[string]*onnxpb.Node{}
	consumers := map[string][]*onnxpb.Node{}
	for _, n := range p.g.Nodes {
		for _, s := range n.Outputs {
			producer[s] = n
		}
		for _, s := range n.Inputs {
			consumers[s] = append(consumers[s], n)
		}
	}
	m := matcher{p: p, producer: producer, consumers: consumers}
	for _, n := range p.g.Nodes {
		b, ok := m.block(n, opset)
		if !ok {
			continue
		}
		for _, d := range b.nodes {
			p.dropped[d.Field] = true
			for _, s := range d.Outputs {
				p.gone[s] = true
			}
		}
		delete(p.dropped, b.out.Field)
		delete(p.gone, b.out.Outputs[0])
		p.fused[b.out.Field] = onnxpb.Node{Name: b.out.Name + "/MultiHeadAttention", OpType: "MultiHeadAttention", Domain: msDomain,
			Inputs: []string{b.q, b.k, b.v}, Outputs: b.out.Outputs, Attrs: map[string]onnxpb.Attr{
				"num_heads": {Type: onnxpb.AttrInt, I: b.heads}, "scale": {Type: onnxpb.AttrFloat, F: b.scale}}}
		p.rep.Attention++
	}
	if p.rep.Attention == 0 {
		return
	}
	read := p.dropDead()
	for _, n := range p.g.Nodes {
		if _, replaced := p.fused[n.Field]; !p.dropped[n.Field] && !replaced {
			continue
		}
		for _, s := range n.Inputs {
			if p.inits[s] != nil && !read[s] && !p.outputs[s] && !p.inputs[s] {
				p.orphans[s] = true // a shape or a scale only the fused nodes read
			}
		}
	}
}

// block matches the attention core that ends at Softmax sm: Softmax(
// QK^T scaled [+ mask]) x V, in transformers' eager form as torch exports
// it, then transposed and reshaped back to [batch, seq, hidden].
func (m matcher) block(sm *onnxpb.Node, opset int64) (block, bool) {
	if sm.OpType != "Softmax" || !sm.DefaultDomain() || len(sm.Inputs) != 1 || len(sm.Outputs) != 1 {
		return block{}, false
	}
	if axis, ok := sm.Int("axis"); (ok && axis != -1 && axis != 3) || (!ok && opset < 13) {
		return block{}, false
	}
	var nodes []*onnxpb.Node
	scores := sm.Inputs[0]
	if add := m.from(scores, "Add"); add != nil && len(add.Inputs) == 2 {
		// The mask: whichever input is not the scaled scores (the mask
		// may be a Mul too, of the attention mask by a large negative).
		for _, in := range add.Inputs {
			if n := m.producer[in]; n != nil && (n.OpType == "Div" || n.OpType == "Mul") && m.from(in, n.OpType) != nil &&
				len(n.Inputs) == 2 && m.from(n.Inputs[0], "MatMul") != nil {
				scores = in
				nodes = append(nodes, add)
				break
			}
		}
	}
	sc := m.producer[scores]
	if sc == nil || m.from(scores, sc.OpType) == nil || len(sc.Inputs) != 2 {
		return block{}, false
	}
	c, ok := m.scalar(sc.Inputs[1])
	if !ok || c == 0 {
		return block{}, false
	}
	scale := c
	switch sc.OpType {
	case "Div":
		scale = 1 / c
	case "Mul":
	default:
		return block{}, false
	}
	qk := m.from(sc.Inputs[0], "MatMul")
	if qk == nil || len(qk.Inputs) != 2 {
		return block{}, false
	}
	q, qn, qs, ok1 := m.heads(qk.Inputs[0], 0, 2, 1, 3)
	k, kn, ks, ok2 := m.heads(qk.Inputs[1], 0, 2, 3, 1)
	if t := m.from(qk.Inputs[1], "Transpose"); !ok2 && t != nil && len(t.Inputs) == 1 {
		// K^T in two steps, as permute then transpose(-1, -2) export
		// unless the exporter merges them.
		if perm, ok := t.IntList("perm"); ok && slices.Equal(perm, []int64{0, 1, 3, 2}) {
			k, kn, ks, ok2 = m.heads(t.Inputs[0], 0, 2, 1, 3)
			kn = append(kn, t)
		}
	}
	av := m.only(sm.Outputs[0], "MatMul")
	if !ok1 || !ok2 || av == nil || len(av.Inputs) != 2 || av.Inputs[0] != sm.Outputs[0] {
		return block{}, false
	}
	v, vn, vs, ok3 := m.heads(av.Inputs[1], 0, 2, 1, 3)
	if !ok3 || qs != ks || qs != vs {
		return block{}, false
	}
	t := m.only(av.Outputs[0], "Transpose")
	if t == nil {
		return block{}, false
	}
	if perm, ok := t.IntList("perm"); !ok || !slices.Equal(perm, []int64{0, 2, 1, 3}) {
		return block{}, false
	}
	out := m.only(t.Outputs[0], "Reshape")
	if out == nil || len(out.Inputs) != 2 || out.Inputs[0] != t.Outputs[0] {
		return block{}, false
	}
	if shape := m.ints(out.Inputs[1]); len(shape) != 3 || shape[0] > 0 || shape[1] > 0 || shape[2] != qs[0]*qs[1] {
		return block{}, false
	}
	nodes = append(nodes, sc, qk, sm, av, t, out)
	nodes = append(append(append(nodes, qn...), kn...), vn...)
	return block{q: q, k: k, v: v, out: out, nodes: nodes, heads: qs[0], scale: scale}, true
}

// dropDead drops the nodes whose every output is read by nothing and is
// no graph output (after a fusion: the padding mask's arithmetic), and
// returns what the nodes left read.
func (p *plan) dropDead() map[string]bool {
	for {
		changed := false
		read := map[string]bool{}
		for _, n := range p.g.Nodes {
			if p.dropped[n.Field] {
				continue
			}
			ins := n.Inputs
			if f, ok := p.fused[n.Field]; ok {
				ins = f.Inputs
			}
			for _, s := range ins {
				read[s] = true
			}
			for _, g := range n.Subgraphs {
				g.Walk(func(sn *onnxpb.Node) {
					for _, s := range sn.Inputs {
						read[s] = true
					}
				})
			}
		}
		for _, n := range p.g.Nodes {
			if p.dropped[n.Field] || len(n.Subgraphs) > 0 || len(n.Outputs) == 0 {
				continue
			}
			if slices.ContainsFunc(n.Outputs, func(s string) bool { return read[s] || p.outputs[s] }) {
				continue
			}
			p.dropped[n.Field] = true
			delete(p.fused, n.Field)
			for _, s := range n.Outputs {
				p.gone[s] = true
			}
			changed = true
		}
		if !changed {
			return read
		}
	}
}

// describeAttention is the report's phrase for the fusion.
func describeAttention(n int, kept bool) string {
	if kept {
		return "attention kept as exported, padding mask included"
	}
	if n == 0 {
		return "no attention block recognized (the attention stays as exported)"
	}
	return fmt.Sprintf("%d attention blocks fused into %s MultiHeadAttention without a padding mask", n, msDomain)
}
