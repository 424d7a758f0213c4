package testmodel

import (
	"fmt"
	"math"

	"qa-shard/internal/onnxpb"
)

// builder appends nodes in topological order (ONNX requires it) and names
// them the way the PyTorch exporter does, "/bert/encoder/layer.0/.../MatMul",
// so ORT profiles and error messages read like those of a real export.
type builder struct {
	g      graph
	seed   uint64
	std    float32           // of the random weights (options.initStdOf)
	consts map[string]string // constant initializers, shared by value

	trained *Weights        // when set, parameters come from it
	used    map[string]bool // trained tensors the graph took
	err     error           // the first trained tensor that did not fit
}

func newBuilder(name string, seed uint64) *builder {
	return &builder{g: graph{name: name}, seed: seed, consts: map[string]string{}}
}

// op adds a node with one output, named after the node like torch does.
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

// rename makes the last node write the given value name; graph outputs need
// their public names (start_logits) rather than generated ones.
func (b *builder) rename(to string) {
	b.g.nodes[len(b.g.nodes)-1].out[0] = to
}

func (b *builder) addInit(t *tensor) string {
	b.g.inits = append(b.g.inits, t)
	return t.name
}

// scalarF32 returns a shared float32 scalar constant; scalars broadcast
// against any shape, which is all the arithmetic below needs.
func (b *builder) scalarF32(v float32) string {
	key := fmt.Sprintf("f32:%08x", math.Float32bits(v))
	if name, ok := b.consts[key]; ok {
		return name
	}
	name := fmt.Sprintf("onnx::Constant_f32_%d", len(b.consts))
	b.consts[key] = name
	return b.addInit(&tensor{name: name, dtype: onnxpb.Float, raw: float32Bytes(v)})
}

// constI64 returns a shared int64 constant; a scalar when vector is false
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

// weight adds a seeded normal initializer; zeroRows leading rows stay zero.
func (b *builder) weight(name string, std float32, zeroRows int, dims ...int64) string {
	if b.trained != nil {
		return b.fromTrained(name, false, dims)
	}
	t := &tensor{name: name, dtype: onnxpb.Float, dims: dims}
	n := t.byteLen() / 4
	row := 1
	if len(dims) > 1 {
		row = int(dims[len(dims)-1])
	}
	t.fill = fillNormal(seedFor(b.seed, name), n, std, zeroRows*row)
	return b.addInit(t)
}

func (b *builder) filled(name string, v float32, dims ...int64) string {
	if b.trained != nil {
		return b.fromTrained(name, false, dims)
	}
	t := &tensor{name: name, dtype: onnxpb.Float, dims: dims}
	t.fill = fillConst(t.byteLen()/4, v)
	return b.addInit(t)
}

// linear is torch.nn.Linear as the exporter emits it: MatMul against the
// transposed weight ([in, out]) followed by Add of the bias.
func (b *builder) linear(scope, module, x string, in, out int, std float32) string {
	var w string
	if b.trained != nil {
		w = b.fromTrained(module+".weight", true, []int64{int64(in), int64(out)})
	} else {
		w = b.weight(module+".weight", std, 0, int64(in), int64(out))
	}
	bias := b.filled(module+".bias", 0, int64(out))
	y := b.op("MatMul", scope+"/MatMul", []string{x, w})
	return b.op("Add", scope+"/Add", []string{bias, y})
}

// fromTrained adds the trained tensor of that name; a Linear weight is
// stored [out, in] and transposed to the [in, out] the MatMul takes.
func (b *builder) fromTrained(name string, transpose bool, dims []int64) string {
	vals, err := b.trained.take(name, transpose, dims...)
	if err != nil && b.err == nil {
		b.err = err
	}
	if vals == nil {
		vals = make([]float32, tensorElems(dims))
	}
	b.used[name] = true
	return b.addInit(&tensor{name: name, dtype: onnxpb.Float, dims: dims, raw: float32Bytes(vals...)})
}

func tensorElems(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

// layerNorm is LayerNorm decomposed the way torch.onnx exports it below
// opset 17; ORT fuses the pattern back into one kernel when it loads.
func (b *builder) layerNorm(scope, module, x string, hidden int, eps float32) string {
	gamma := b.filled(module+".weight", 1, int64(hidden))
	beta := b.filled(module+".bias", 0, int64(hidden))
	mean := b.op("ReduceMean", scope+"/ReduceMean", []string{x}, intsAttr("axes", -1), intAttr("keepdims", 1))
	d := b.op("Sub", scope+"/Sub", []string{x, mean})
	sq := b.op("Pow", scope+"/Pow", []string{d, b.scalarF32(2)})
	vr := b.op("ReduceMean", scope+"/ReduceMean_1", []string{sq}, intsAttr("axes", -1), intAttr("keepdims", 1))
	ve := b.op("Add", scope+"/Add", []string{vr, b.scalarF32(eps)})
	sd := b.op("Sqrt", scope+"/Sqrt", []string{ve})
	n := b.op("Div", scope+"/Div", []string{d, sd})
	g := b.op("Mul", scope+"/Mul", []string{n, gamma})
	return b.op("Add", scope+"/Add_1", []string{g, beta})
}

// gelu is the exact erf form BERT uses: x * 0.5 * (1 + erf(x / sqrt(2))).
func (b *builder) gelu(scope, x string) string {
	d := b.op("Div", scope+"/Div", []string{x, b.scalarF32(float32(math.Sqrt2))})
	e := b.op("Erf", scope+"/Erf", []string{d})
	a := b.op("Add", scope+"/Add", []string{e, b.scalarF32(1)})
	m := b.op("Mul", scope+"/Mul", []string{x, a})
	return b.op("Mul", scope+"/Mul_1", []string{m, b.scalarF32(0.5)})
}
