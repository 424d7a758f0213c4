package qagraph

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"qa-shard/internal/onnxpb"
)

// opset 14, what optimum picks by default for these models: LayerNorm is
// written out of its parts, which ONNX Runtime fuses back when it loads.
const defaultOpset = 14

// maskMin is the additive mask of padded keys: exp underflows to 0 in
// float32 as it does for transformers' own (torch.finfo.min), and it
// stays finite in float16.
const maskMin = -10000.0

// builder appends nodes in topological order (ONNX requires it), named the
// way the PyTorch exporter names them, and takes each weight from the
// Source once however often the graph uses it (ALBERT shares its layers).
type builder struct {
	g      graph
	src    Source
	consts map[string]string
	params map[string]string // weights taken, by name and layout
	err    error             // the first weight that could not be taken
	fused  bool              // ONNX Runtime's fused operators (Fused)
	half   bool              // float16 weights and arithmetic (Float16)
}

// float is the element type of the graph's activations and weights:
// float32, or float16 under Float16.
func (b *builder) float() int32 {
	if b.half {
		return onnxpb.Float16
	}
	return onnxpb.Float
}

func newBuilder(src Source) *builder {
	return &builder{g: graph{name: "main_graph"}, src: src, consts: map[string]string{}, params: map[string]string{}}
}

// op adds a node with one output, named after the node as torch does.
func (b *builder) op(op, name string, in []string, attrs ...attr) string {
	return b.opN(op, name, in, 1, attrs...)[0]
}

func (b *builder) opN(op, name string, in []string, outs int, attrs ...attr) []string {
	out := make([]string, outs)
	for i := range out {
		out[i] = fmt.Sprintf("%s_output_%d", name, i)
	}
	b.g.nodes = append(b.g.nodes, node{op: op, name: name, in: in, out: out, attrs: attrs})
	return out
}

// rename makes the last node write the given value name (the graph's
// outputs need their public names).
func (b *builder) rename(to string) {
	b.g.nodes[len(b.g.nodes)-1].out[0] = to
}

func (b *builder) addInit(t *tensor) string {
	b.g.inits = append(b.g.inits, t)
	return t.name
}

// scalarF32 is a shared scalar constant of the graph's float type.
func (b *builder) scalarF32(v float32) string {
	key := fmt.Sprintf("f%d:%08x", b.float(), math.Float32bits(v))
	if name, ok := b.consts[key]; ok {
		return name
	}
	name := fmt.Sprintf("onnx::Constant_f32_%d", len(b.consts))
	b.consts[key] = name
	raw := float32Bytes(v)
	if b.half {
		raw = float16Bytes(v)
	}
	return b.addInit(&tensor{name: name, dtype: b.float(), raw: raw})
}

// constI64 is a shared int64 constant: a scalar when vector is false
// (Gather indices, Range bounds), a 1-D tensor otherwise (shapes, axes).
func (b *builder) constI64(vector bool, vals ...int64) string {
	key := fmt.Sprintf("i64:%v:%v", vector, vals)
	if name, ok := b.consts[key]; ok {
		return name
	}
	var dims []int64
	if vector {
		dims = []int64{int64(len(vals))}
	}
	name := fmt.Sprintf("onnx::Constant_i64_%d", len(b.consts))
	b.consts[key] = name
	return b.addInit(&tensor{name: name, dtype: onnxpb.Int64, dims: dims, raw: int64Bytes(vals...)})
}

// tableI64 is an int64 constant of any shape (DeBERTa's position buckets).
func (b *builder) tableI64(name string, dims []int64, vals []int64) string {
	return b.addInit(&tensor{name: name, dtype: onnxpb.Int64, dims: dims, raw: int64Bytes(vals...)})
}

// param is the weight called name, of the given shape as the Source holds
// it; transpose stores a [rows, cols] matrix as [cols, rows] (a Linear's
// [out, in] weight as the [in, out] a MatMul takes).
func (b *builder) param(name string, transpose bool, shape ...int64) string {
	return b.paramOf(b.float(), name, transpose, shape...)
}

// paramOf is param stored as dtype (float32 or float16): the embedding
// tables of a float16 graph stay float32 (EmbedLayerNormalization is
// float32 on every provider; its output is cast).
func (b *builder) paramOf(dtype int32, name string, transpose bool, shape ...int64) string {
	key := fmt.Sprintf("%s/%v/%d", name, transpose, dtype)
	if id, ok := b.params[key]; ok {
		return id
	}
	w, err := b.src.Weight(name, shape)
	if err == nil && !slices.Equal(w.Shape, shape) {
		err = fmt.Errorf("%w: %s has shape %v, the config implies %v", ErrWeights, name, w.Shape, shape)
	}
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		w = Weight{Shape: shape, Write: zeros(shape)}
	}
	dims := slices.Clone(shape)
	id := name // a Linear weight keeps its name, stored transposed
	if transpose {
		dims[0], dims[1] = dims[1], dims[0]
	}
	if dtype != onnxpb.Float {
		id += ".fp16"
	}
	b.params[key] = id
	write := w.Write
	return b.addInit(&tensor{name: id, dtype: dtype, dims: dims, fill: func(out io.Writer) error {
		if dtype == onnxpb.Float16 {
			h := &halfWriter{w: out}
			if err := write(h, transpose); err != nil {
				return err
			}
			return h.flush()
		}
		return write(out, transpose)
	}})
}

// linear is torch.nn.Linear: MatMul against the transposed weight, then
// Add of the bias (none when bias is false).
func (b *builder) linear(scope, module, x string, in, out int, bias bool) string {
	w := b.param(module+".weight", true, int64(out), int64(in))
	y := b.op("MatMul", scope+"/MatMul", []string{x, w})
	if !bias {
		return y
	}
	return b.op("Add", scope+"/Add", []string{b.param(module+".bias", false, int64(out)), y})
}

// layerNorm is torch.nn.LayerNorm over the last axis, written out of its
// parts the way torch.onnx exports it below opset 17.
func (b *builder) layerNorm(scope, module, x string, hidden int, eps float64) string {
	gamma := b.param(module+".weight", false, int64(hidden))
	beta := b.param(module+".bias", false, int64(hidden))
	mean := b.op("ReduceMean", scope+"/ReduceMean", []string{x}, intsAttr("axes", -1), intAttr("keepdims", 1))
	d := b.op("Sub", scope+"/Sub", []string{x, mean})
	sq := b.op("Pow", scope+"/Pow", []string{d, b.scalarF32(2)})
	vr := b.op("ReduceMean", scope+"/ReduceMean_1", []string{sq}, intsAttr("axes", -1), intAttr("keepdims", 1))
	ve := b.op("Add", scope+"/Add", []string{vr, b.scalarF32(float32(eps))})
	sd := b.op("Sqrt", scope+"/Sqrt", []string{ve})
	n := b.op("Div", scope+"/Div", []string{d, sd})
	g := b.op("Mul", scope+"/Mul", []string{n, gamma})
	return b.op("Add", scope+"/Add_1", []string{g, beta})
}

// act is the config's hidden_act (transformers' ACT2FN).
func (b *builder) act(scope, name, x string) string {
	switch name {
	case "gelu", "gelu_python":
		// x * 0.5 * (1 + erf(x / sqrt(2)))
		d := b.op("Div", scope+"/Div", []string{x, b.scalarF32(float32(math.Sqrt2))})
		e := b.op("Erf", scope+"/Erf", []string{d})
		a := b.op("Add", scope+"/Add", []string{e, b.scalarF32(1)})
		m := b.op("Mul", scope+"/Mul", []string{x, a})
		return b.op("Mul", scope+"/Mul_1", []string{m, b.scalarF32(0.5)})
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
		x3 := b.op("Pow", scope+"/Pow", []string{x, b.scalarF32(3)})
		c := b.op("Mul", scope+"/Mul", []string{x3, b.scalarF32(0.044715)})
		s := b.op("Add", scope+"/Add", []string{x, c})
		k := b.op("Mul", scope+"/Mul_1", []string{s, b.scalarF32(float32(math.Sqrt(2 / math.Pi)))})
		t := b.op("Tanh", scope+"/Tanh", []string{k})
		a := b.op("Add", scope+"/Add_1", []string{t, b.scalarF32(1)})
		h := b.op("Mul", scope+"/Mul_2", []string{x, b.scalarF32(0.5)})
		return b.op("Mul", scope+"/Mul_3", []string{h, a})
	case "relu":
		return b.op("Relu", scope+"/Relu", []string{x})
	case "silu", "swish":
		sg := b.op("Sigmoid", scope+"/Sigmoid", []string{x})
		return b.op("Mul", scope+"/Mul", []string{x, sg})
	}
	if b.err == nil {
		b.err = fmt.Errorf("%w: hidden_act %q", ErrConfig, name)
	}
	return x
}

// heads reshapes [batch, seq, heads*size] to [batch, heads, seq, size]
// (perm 0,2,1,3) or, for keys, [batch, heads, size, seq] (0,2,3,1).
func (b *builder) heads(scope, x string, heads, size int, perm ...int64) string {
	r := b.op("Reshape", scope+"/Reshape", []string{x, b.constI64(true, 0, 0, int64(heads), int64(size))})
	return b.op("Transpose", scope+"/Transpose", []string{r}, intsAttr("perm", perm...))
}

// merge turns [batch, heads, seq, size] back into [batch, seq, heads*size].
func (b *builder) merge(scope, x string, width int) string {
	t := b.op("Transpose", scope+"/Transpose", []string{x}, intsAttr("perm", 0, 2, 1, 3))
	return b.op("Reshape", scope+"/Reshape", []string{t, b.constI64(true, 0, 0, int64(width))})
}

// additiveMask turns attention_mask [batch, seq] into (1 - mask) * -10000
// shaped [batch, 1, 1, seq]: it broadcasts over heads and queries, so
// padded keys get no attention.
func (b *builder) additiveMask(scope string) string {
	u := b.op("Unsqueeze", scope+"/Unsqueeze", []string{"attention_mask", b.constI64(true, 1, 2)})
	f := b.op("Cast", scope+"/Cast", []string{u}, intAttr("to", int64(b.float())))
	inv := b.op("Sub", scope+"/Sub", []string{b.scalarF32(1), f})
	return b.op("Mul", scope+"/Mul", []string{inv, b.scalarF32(maskMin)})
}

// attention is multi-head scaled dot-product attention of BERT's self
// attention: softmax(Q K^T / sqrt(size) + mask) V, merged back.
func (b *builder) attention(scope string, q, k, v, mask string, heads, size int) string {
	qh := b.heads(scope+"/query", q, heads, size, 0, 2, 1, 3)
	kh := b.heads(scope+"/key", k, heads, size, 0, 2, 3, 1)
	vh := b.heads(scope+"/value", v, heads, size, 0, 2, 1, 3)
	scores := b.op("MatMul", scope+"/MatMul", []string{qh, kh})
	scores = b.op("Div", scope+"/Div", []string{scores, b.scalarF32(float32(math.Sqrt(float64(size))))})
	scores = b.op("Add", scope+"/Add", []string{scores, mask})
	probs := b.op("Softmax", scope+"/Softmax", []string{scores}, intAttr("axis", -1))
	ctx := b.op("MatMul", scope+"/MatMul_1", []string{probs, vh})
	return b.merge(scope+"/context", ctx, heads*size)
}

// inputs declares the graph's inputs: input_ids, attention_mask and,
// when the family takes them, token_type_ids ([batch, sequence] int64).
func (b *builder) inputs(tokenTypes bool) {
	batchSeq := []dim{{param: "batch_size"}, {param: "sequence_length"}}
	names := []string{"input_ids", "attention_mask"}
	if tokenTypes {
		names = append(names, "token_type_ids")
	}
	for _, name := range names {
		b.g.inputs = append(b.g.inputs, valueInfo{name: name, dtype: onnxpb.Int64, dims: batchSeq})
	}
}

// qaHead is the question-answering head: qa_outputs, a Linear of hidden
// to 2, split into start_logits and end_logits [batch, sequence].
func (b *builder) qaHead(x string, hidden int, fp16 bool) {
	logits := b.linear("/qa_outputs", "qa_outputs", x, hidden, 2, true)
	parts := b.opN("Split", "/Split", []string{logits, b.constI64(true, 1, 1)}, 2, intAttr("axis", -1))
	batchSeq := []dim{{param: "batch_size"}, {param: "sequence_length"}}
	out := onnxpb.Float
	if fp16 {
		out = onnxpb.Float16
	}
	for i, name := range []string{"start_logits", "end_logits"} {
		y := b.op("Squeeze", fmt.Sprintf("/Squeeze_%d", i), []string{parts[i], b.constI64(true, -1)})
		if out != b.float() {
			b.op("Cast", "/Cast_"+name, []string{y}, intAttr("to", int64(out)))
		}
		b.rename(name)
		b.g.outputs = append(b.g.outputs, valueInfo{name: name, dtype: out, dims: batchSeq})
	}
}

// seqRange is [0, 1, ..., sequence_length-1] (int64) of input_ids.
func (b *builder) seqRange(scope string) string {
	shape := b.op("Shape", scope+"/Shape", []string{"input_ids"})
	seqLen := b.op("Gather", scope+"/Gather", []string{shape, b.constI64(false, 1)}, intAttr("axis", 0))
	return b.op("Range", scope+"/Range", []string{b.constI64(false, 0), seqLen, b.constI64(false, 1)})
}

func zeros(shape []int64) func(w io.Writer, _ bool) error {
	return func(w io.Writer, _ bool) error {
		n := int64(4)
		for _, d := range shape {
			n *= d
		}
		_, err := w.Write(make([]byte, n))
		return err
	}
}

// scope is the node name prefix of a module, as the PyTorch exporter
// writes it: bert.encoder.layer.0 is /bert/encoder/layer.0.
func scope(module string) string {
	parts := strings.Split(module, ".")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && p != "" && p[0] >= '0' && p[0] <= '9' {
			b.WriteString("." + p)
			continue
		}
		b.WriteString("/" + p)
	}
	return b.String()
}
