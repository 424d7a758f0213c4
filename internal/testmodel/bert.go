package testmodel

import (
	"fmt"
	"math"

	"qa-shard/internal/onnxpb"
)

// opset 14 is what optimum picks by default for BERT; the model then has no
// LayerNormalization op, exactly like the exports the program meets.
const defaultOpset = 14

const (
	initStd = 0.02     // BertConfig.initializer_range
	maskMin = -10000.0 // additive mask of transformers' BERT
)

// buildBERT lays out BertForQuestionAnswering as optimum exports it. Dynamic
// axes are named batch_size and sequence_length, as in optimum's exports.
func buildBERT(p Preset, o options) (*graph, error) {
	b := newBuilder("main_graph", p.Seed)
	b.std = o.initStdOf()
	if o.weights != nil {
		b.trained, b.used = o.weights, map[string]bool{}
	}
	batchSeq := []dim{{param: "batch_size"}, {param: "sequence_length"}}
	inputs := []string{"input_ids", "attention_mask"}
	if !o.noTokenTypes {
		inputs = append(inputs, "token_type_ids")
	}
	for _, name := range inputs {
		b.g.inputs = append(b.g.inputs, valueInfo{name: name, dtype: onnxpb.Int64, dims: batchSeq})
	}

	x := embeddings(b, p, o)
	mask := extendedMask(b)
	for i := 0; i < p.Layers; i++ {
		x = encoderLayer(b, p, i, x, mask)
	}

	// The head gets a wider init than BERT's 0.02 so that an untrained model
	// still yields logits spread over a few units, not all nearly equal; span
	// decoding over such logits picks distinct, stable answers.
	headStd := float32(2 / math.Sqrt(float64(p.Hidden)))
	if o.std != 0 {
		headStd = o.std
	}
	logits := b.linear("/qa_outputs", "qa_outputs", x, p.Hidden, 2, headStd)
	parts := b.opN("Split", "/Split", []string{logits, b.constI64(true, 1, 1)}, 2, intAttr("axis", -1))
	outType := onnxpb.Float
	for i, name := range []string{"start_logits", "end_logits"} {
		scope := "/Squeeze"
		if i == 1 {
			scope = "/Squeeze_1"
		}
		b.op("Squeeze", scope, []string{parts[i], b.constI64(true, -1)})
		if o.fp16Logits {
			prev := b.g.nodes[len(b.g.nodes)-1].out[0]
			b.op("Cast", fmt.Sprintf("/Cast_%s", name), []string{prev}, intAttr("to", int64(onnxpb.Float16)))
			outType = onnxpb.Float16
		}
		b.rename(name)
		b.g.outputs = append(b.g.outputs, valueInfo{name: name, dtype: outType, dims: batchSeq})
	}
	if b.err != nil {
		return nil, b.err
	}
	if o.weights != nil {
		for _, n := range o.weights.names() {
			if !b.used[n] {
				return nil, fmt.Errorf("%w: the graph has no place for %s (is the preset the file's?)", ErrWeights, n)
			}
		}
	}
	return &b.g, nil
}

// embeddings sums word, position and token-type embeddings, then LayerNorm.
// Without a token_type_ids input, row 0 of the token-type table is added to
// every position: what transformers does when the caller omits the input.
func embeddings(b *builder, p Preset, o options) string {
	const s, m = "/bert/embeddings", "bert.embeddings"
	h := int64(p.Hidden)
	words := b.weight(m+".word_embeddings.weight", b.std, 1, int64(p.VocabSize), h)
	if t := b.g.inits[len(b.g.inits)-1]; t.name == words && t.fill != nil {
		t.fill = infiniteRows(t.fill, o.infinite, p.Hidden)
	}
	positions := b.weight(m+".position_embeddings.weight", b.std, 0, int64(p.MaxPositions), h)
	types := b.weight(m+".token_type_embeddings.weight", b.std, 0, int64(p.TypeVocab), h)

	w := b.op("Gather", s+"/word_embeddings/Gather", []string{words, "input_ids"})
	shape := b.op("Shape", s+"/Shape", []string{"input_ids"})
	seqLen := b.op("Gather", s+"/Gather", []string{shape, b.constI64(false, 1)}, intAttr("axis", 0))
	ids := b.op("Range", s+"/Range", []string{b.constI64(false, 0), seqLen, b.constI64(false, 1)})
	pos := b.op("Gather", s+"/position_embeddings/Gather", []string{positions, ids})

	var tt string
	if o.noTokenTypes {
		tt = b.op("Gather", s+"/token_type_embeddings/Gather", []string{types, b.constI64(false, 0)})
	} else {
		tt = b.op("Gather", s+"/token_type_embeddings/Gather", []string{types, "token_type_ids"})
	}
	sum := b.op("Add", s+"/Add", []string{w, tt})
	sum = b.op("Add", s+"/Add_1", []string{sum, pos})
	return b.layerNorm(s+"/LayerNorm", m+".LayerNorm", sum, p.Hidden, layerNormEps)
}

// extendedMask turns attention_mask [batch, seq] into the additive bias
// (1 - mask) * -10000 shaped [batch, 1, 1, seq], which broadcasts over heads
// and query positions so padded keys get zero attention weight.
func extendedMask(b *builder) string {
	const s = "/bert"
	u := b.op("Unsqueeze", s+"/Unsqueeze", []string{"attention_mask", b.constI64(true, 1, 2)})
	f := b.op("Cast", s+"/Cast", []string{u}, intAttr("to", int64(onnxpb.Float)))
	inv := b.op("Sub", s+"/Sub", []string{b.scalarF32(1), f})
	return b.op("Mul", s+"/Mul", []string{inv, b.scalarF32(maskMin)})
}

func encoderLayer(b *builder, p Preset, i int, x, mask string) string {
	s := fmt.Sprintf("/bert/encoder/layer.%d", i)
	m := fmt.Sprintf("bert.encoder.layer.%d", i)
	h, heads := p.Hidden, int64(p.Heads)
	hd := int64(p.Hidden / p.Heads)
	split := b.constI64(true, 0, 0, heads, hd) // 0 keeps batch and sequence

	proj := func(name string, perm ...int64) string {
		y := b.linear(s+"/attention/self/"+name, m+".attention.self."+name, x, h, h, b.std)
		r := b.op("Reshape", s+"/attention/self/"+name+"/Reshape", []string{y, split})
		return b.op("Transpose", s+"/attention/self/"+name+"/Transpose", []string{r}, intsAttr("perm", perm...))
	}
	q := proj("query", 0, 2, 1, 3)
	k := proj("key", 0, 2, 3, 1) // pre-transposed for Q x K^T
	v := proj("value", 0, 2, 1, 3)

	sa := s + "/attention/self"
	scores := b.op("MatMul", sa+"/MatMul", []string{q, k})
	scores = b.op("Div", sa+"/Div", []string{scores, b.scalarF32(float32(math.Sqrt(float64(hd))))})
	scores = b.op("Add", sa+"/Add", []string{scores, mask})
	probs := b.op("Softmax", sa+"/Softmax", []string{scores}, intAttr("axis", -1))
	ctx := b.op("MatMul", sa+"/MatMul_1", []string{probs, v})
	ctx = b.op("Transpose", sa+"/Transpose", []string{ctx}, intsAttr("perm", 0, 2, 1, 3))
	ctx = b.op("Reshape", sa+"/Reshape", []string{ctx, b.constI64(true, 0, 0, int64(h))})

	so := s + "/attention/output"
	att := b.linear(so+"/dense", m+".attention.output.dense", ctx, h, h, b.std)
	att = b.op("Add", so+"/Add", []string{att, x})
	att = b.layerNorm(so+"/LayerNorm", m+".attention.output.LayerNorm", att, h, layerNormEps)

	inter := b.linear(s+"/intermediate/dense", m+".intermediate.dense", att, h, p.Intermediate, b.std)
	inter = b.gelu(s+"/intermediate/intermediate_act_fn", inter)
	out := b.linear(s+"/output/dense", m+".output.dense", inter, p.Intermediate, h, b.std)
	out = b.op("Add", s+"/output/Add", []string{out, att})
	return b.layerNorm(s+"/output/LayerNorm", m+".output.LayerNorm", out, h, layerNormEps)
}
