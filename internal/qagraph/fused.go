package qagraph

import (
	"bytes"
	"io"

	"qa-shard/internal/onnxpb"
)

// msDomain is ONNX Runtime's operator set: the fused transformer
// operators of its contrib ops (ContribOperators.md).
const msDomain = "com.microsoft"

// The parts of a layer that the fused graph (Fused) writes as one ONNX
// Runtime operator each, and the unfused graph as the PyTorch exporter
// writes them. Each takes the same weights either way.

// msOp adds a node of ONNX Runtime's operator set.
func (b *builder) msOp(op, name string, in []string, attrs ...attr) string {
	out := b.op(op, name, in, attrs...)
	b.g.nodes[len(b.g.nodes)-1].domain = msDomain
	return out
}

// qkv names the three projections of a self-attention block: node scopes
// and the modules that hold their weights.
type qkv struct {
	scopes, modules [3]string
}

// selfAttention is multi-head self attention of x through the projections
// p, with mask from attentionMask: the unfused MatMuls, Softmax and
// reshapes, or one Attention node over the packed [in, 3*w] weights
// (query | key | value columns, each the transposed Linear weight) and
// the int32 padding mask.
func (b *builder) selfAttention(scope string, p qkv, x, mask string, in, heads, size int) string {
	w := heads * size
	if !b.fused {
		var out [3]string
		for i := range out {
			out[i] = b.linear(p.scopes[i], p.modules[i], x, in, w, true)
		}
		return b.attention(scope, out[0], out[1], out[2], mask, heads, size)
	}
	weights := b.packed(p.modules, ".weight", true, int64(w), int64(in))
	bias := b.packed(p.modules, ".bias", false, int64(w))
	return b.msOp("Attention", scope+"/Attention", []string{x, weights, bias, mask}, intAttr("num_heads", int64(heads)))
}

// attentionMask is what selfAttention takes as its mask: the additive
// [batch, 1, 1, seq] float mask, or attention_mask as int32 for Attention.
func (b *builder) attentionMask(scope string) string {
	if !b.fused {
		return b.additiveMask(scope)
	}
	return b.op("Cast", scope+"/Cast_mask", []string{"attention_mask"}, intAttr("to", int64(onnxpb.Int32)))
}

// projectAddNorm is a Linear of x, the residual added and LayerNorm: the
// four nodes of the export, or MatMul and SkipLayerNormalization with the
// Linear's bias folded in.
func (b *builder) projectAddNorm(dense, denseModule, add, norm, normModule, x, residual string, in, out int, eps float64) string {
	if !b.fused {
		y := b.linear(dense, denseModule, x, in, out, true)
		y = b.op("Add", add, []string{y, residual})
		return b.layerNorm(norm, normModule, y, out, eps)
	}
	w := b.param(denseModule+".weight", true, int64(out), int64(in))
	y := b.op("MatMul", dense+"/MatMul", []string{x, w})
	gamma := b.param(normModule+".weight", false, int64(out))
	beta := b.param(normModule+".bias", false, int64(out))
	bias := b.param(denseModule+".bias", false, int64(out))
	return b.msOp("SkipLayerNormalization", norm+"/SkipLayerNormalization", []string{y, residual, gamma, beta, bias}, floatAttr("epsilon", float32(eps)))
}

// projectAct is a Linear of x and the activation act: in the fused graph
// exact GELU is MatMul and BiasGelu, the tanh approximation MatMul and
// FastGelu; other activations stay as exported.
func (b *builder) projectAct(dense, module, actScope, act, x string, in, out int) string {
	fusedOp := map[string]string{"gelu": "BiasGelu", "gelu_python": "BiasGelu", "gelu_new": "FastGelu", "gelu_pytorch_tanh": "FastGelu", "gelu_fast": "FastGelu"}[act]
	if !b.fused || fusedOp == "" {
		return b.act(actScope, act, b.linear(dense, module, x, in, out, true))
	}
	w := b.param(module+".weight", true, int64(out), int64(in))
	y := b.op("MatMul", dense+"/MatMul", []string{x, w})
	return b.msOp(fusedOp, actScope+"/"+fusedOp, []string{y, b.param(module+".bias", false, int64(out))})
}

// norm is a LayerNorm of x: written out of its parts, or one
// LayerNormalization node in the fused graph.
func (b *builder) norm(scope, module, x string, hidden int, eps float64) string {
	if !b.fused {
		return b.layerNorm(scope, module, x, hidden, eps)
	}
	gamma := b.param(module+".weight", false, int64(hidden))
	beta := b.param(module+".bias", false, int64(hidden))
	return b.op("LayerNormalization", scope+"/LayerNormalization", []string{x, gamma, beta}, intAttr("axis", -1), floatAttr("epsilon", float32(eps)))
}

// packed is one initializer of the three modules' tensors (name suffix)
// side by side: matrices of shape [rows, cols] each, transposed and
// joined column-wise to [cols, 3 rows] (query | key | value for every
// input row), or vectors [rows] joined to [3 rows]. The three are read
// when the file is written.
func (b *builder) packed(modules [3]string, suffix string, transpose bool, shape ...int64) string {
	name := modules[0] + suffix + "+key+value"
	key := name + "/packed"
	if id, ok := b.params[key]; ok {
		return id
	}
	var ws [3]Weight
	for i, m := range modules {
		w, err := b.src.Weight(m+suffix, shape)
		if err != nil {
			if b.err == nil {
				b.err = err
			}
			w = Weight{Shape: shape, Write: zeros(shape)}
		}
		ws[i] = w
	}
	dims := []int64{3 * shape[0]}
	if transpose {
		dims = []int64{shape[1], 3 * shape[0]}
	}
	b.params[key] = name
	dtype := b.float()
	return b.addInit(&tensor{name: name, dtype: dtype, dims: dims, fill: func(dst io.Writer) error {
		out := dst
		if dtype == onnxpb.Float16 {
			h := &halfWriter{w: dst}
			defer h.flush()
			out = h
		}
		if !transpose {
			for _, w := range ws {
				if err := w.Write(out, false); err != nil {
					return err
				}
			}
			return nil
		}
		var parts [3][]byte
		for i, w := range ws {
			var buf bytes.Buffer
			if err := w.Write(&buf, true); err != nil {
				return err
			}
			parts[i] = buf.Bytes()
		}
		row := int(shape[0]) * 4 // one transposed row: rows float32 values
		for r := range int(shape[1]) {
			for _, p := range parts {
				if _, err := out.Write(p[r*row : (r+1)*row]); err != nil {
					return err
				}
			}
		}
		return nil
	}})
}
