package qagraph

import (
	"fmt"
)

// build lays out the *ForQuestionAnswering model of c.
func build(c Config, src Source, opts ...Option) (*graph, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.tokenTypes != nil {
		c.tokenTypes = o.tokenTypes
	}
	b := newBuilder(src)
	b.inputs(c.TokenTypes())
	var x string
	switch c.ModelType {
	case "bert", "electra", "roberta", "xlm-roberta", "camembert":
		x = bertLike(b, c)
	case "albert":
		x = albert(b, c)
	case "distilbert":
		x = distilbert(b, c)
	case "deberta-v2":
		x = deberta(b, c)
	default:
		return nil, fmt.Errorf("%w: model_type %q", ErrConfig, c.ModelType)
	}
	b.qaHead(x, c.Hidden, o.fp16Logits)
	if b.err != nil {
		return nil, b.err
	}
	if u, ok := src.(Unused); ok {
		if left := u.Unused(); len(left) > 0 {
			return nil, fmt.Errorf("%w: the checkpoint holds tensors a %s model has no place for: %v (is config.json the checkpoint's own?)", ErrWeights, Families[c.ModelType], first(left, 6))
		}
	}
	return &b.g, nil
}

// prefix is the base model's name in the weights' names.
func prefix(modelType string) string {
	switch modelType {
	case "roberta", "xlm-roberta", "camembert":
		return "roberta"
	case "deberta-v2":
		return "deberta"
	}
	return modelType
}

// embeddings are BERT's: word, position and token type embeddings summed,
// then LayerNorm, at width e. RoBERTa's positions count the non-padding
// tokens from padding_idx + 1; a family without a token_type_ids input
// adds its table's row 0, as transformers does when the caller gives none.
func embeddings(b *builder, c Config, m string, e int) string {
	s := scope(m)
	words := b.param(m+".word_embeddings.weight", false, int64(c.VocabSize), int64(e))
	w := b.op("Gather", s+"/word_embeddings/Gather", []string{words, "input_ids"})
	sum := w
	if c.TypeVocab > 0 {
		types := b.param(m+".token_type_embeddings.weight", false, int64(c.TypeVocab), int64(e))
		ids := "token_type_ids"
		if !c.TokenTypes() {
			ids = b.constI64(false, 0)
		}
		tt := b.op("Gather", s+"/token_type_embeddings/Gather", []string{types, ids})
		sum = b.op("Add", s+"/Add", []string{w, tt})
	}
	positions := b.param(m+".position_embeddings.weight", false, int64(c.MaxPositions), int64(e))
	var pos string
	switch c.ModelType {
	case "roberta", "xlm-roberta", "camembert":
		pos = b.op("Gather", s+"/position_embeddings/Gather", []string{positions, robertaPositions(b, s, c.PadTokenID)})
	default:
		pos = b.op("Gather", s+"/position_embeddings/Gather", []string{positions, b.seqRange(s)})
	}
	sum = b.op("Add", s+"/Add_1", []string{sum, pos})
	return b.layerNorm(s+"/LayerNorm", m+".LayerNorm", sum, e, c.LayerNormEps)
}

// robertaPositions is transformers' create_position_ids_from_input_ids:
// cumsum(input_ids != pad) * (input_ids != pad) + pad.
func robertaPositions(b *builder, s string, pad int) string {
	ne := b.op("Not", s+"/Not", []string{b.op("Equal", s+"/Equal", []string{"input_ids", b.constI64(false, int64(pad))})})
	mask := b.op("Cast", s+"/Cast", []string{ne}, intAttr("to", 7)) // int64
	cum := b.op("CumSum", s+"/CumSum", []string{mask, b.constI64(false, 1)})
	inc := b.op("Mul", s+"/Mul", []string{cum, mask})
	return b.op("Add", s+"/Add_2", []string{inc, b.constI64(false, int64(pad))})
}

// bertLike is BERT, ELECTRA and the RoBERTa family: embeddings (ELECTRA's
// projected to the hidden width), then the encoder.
func bertLike(b *builder, c Config) string {
	m := prefix(c.ModelType)
	x := embeddings(b, c, m+".embeddings", c.EmbeddingSize)
	if c.ModelType == "electra" && c.EmbeddingSize != c.Hidden {
		x = b.linear("/electra/embeddings_project", "electra.embeddings_project", x, c.EmbeddingSize, c.Hidden, true)
	}
	mask := b.additiveMask("/" + m)
	for i := range c.Layers {
		x = bertLayer(b, c, fmt.Sprintf("%s.encoder.layer.%d", m, i), x, mask)
	}
	return x
}

// bertLayer is one BertLayer: self attention, its output projection with
// the residual and LayerNorm, the intermediate projection and activation,
// the output projection with the residual and LayerNorm.
func bertLayer(b *builder, c Config, m, x, mask string) string {
	s := scope(m)
	h := c.Hidden
	w := c.Heads * c.HeadSize
	q := b.linear(s+"/attention/self/query", m+".attention.self.query", x, h, w, true)
	k := b.linear(s+"/attention/self/key", m+".attention.self.key", x, h, w, true)
	v := b.linear(s+"/attention/self/value", m+".attention.self.value", x, h, w, true)
	ctx := b.attention(s+"/attention/self", q, k, v, mask, c.Heads, c.HeadSize)
	att := b.linear(s+"/attention/output/dense", m+".attention.output.dense", ctx, w, h, true)
	att = b.op("Add", s+"/attention/output/Add", []string{att, x})
	att = b.layerNorm(s+"/attention/output/LayerNorm", m+".attention.output.LayerNorm", att, h, c.LayerNormEps)
	inter := b.linear(s+"/intermediate/dense", m+".intermediate.dense", att, h, c.Intermediate, true)
	inter = b.act(s+"/intermediate/intermediate_act_fn", c.HiddenAct, inter)
	out := b.linear(s+"/output/dense", m+".output.dense", inter, c.Intermediate, h, true)
	out = b.op("Add", s+"/output/Add", []string{out, att})
	return b.layerNorm(s+"/output/LayerNorm", m+".output.LayerNorm", out, h, c.LayerNormEps)
}

// albert is ALBERT: embeddings of embedding_size, mapped to the hidden
// width, then num_hidden_layers passes through the shared layer groups.
func albert(b *builder, c Config) string {
	x := embeddings(b, c, "albert.embeddings", c.EmbeddingSize)
	x = b.linear("/albert/encoder/embedding_hidden_mapping_in", "albert.encoder.embedding_hidden_mapping_in", x, c.EmbeddingSize, c.Hidden, true)
	mask := b.additiveMask("/albert")
	perGroup := c.Layers / c.HiddenGroups
	for i := range c.Layers {
		group := i / perGroup
		for j := range c.InnerGroups {
			m := fmt.Sprintf("albert.encoder.albert_layer_groups.%d.albert_layers.%d", group, j)
			x = albertLayer(b, c, fmt.Sprintf("/albert/encoder/layer.%d.%d", i, j), m, x, mask)
		}
	}
	return x
}

// albertLayer is one AlbertLayer: attention with its dense projection,
// residual and LayerNorm, then ffn, activation, ffn_output, residual and
// full_layer_layer_norm.
func albertLayer(b *builder, c Config, s, m, x, mask string) string {
	h := c.Hidden
	w := c.Heads * c.HeadSize
	q := b.linear(s+"/attention/query", m+".attention.query", x, h, w, true)
	k := b.linear(s+"/attention/key", m+".attention.key", x, h, w, true)
	v := b.linear(s+"/attention/value", m+".attention.value", x, h, w, true)
	ctx := b.attention(s+"/attention", q, k, v, mask, c.Heads, c.HeadSize)
	att := b.linear(s+"/attention/dense", m+".attention.dense", ctx, w, h, true)
	att = b.op("Add", s+"/attention/residual/Add", []string{x, att})
	att = b.layerNorm(s+"/attention/LayerNorm", m+".attention.LayerNorm", att, h, c.LayerNormEps)
	ffn := b.linear(s+"/ffn", m+".ffn", att, h, c.Intermediate, true)
	ffn = b.act(s+"/activation", c.HiddenAct, ffn)
	ffn = b.linear(s+"/ffn_output", m+".ffn_output", ffn, c.Intermediate, h, true)
	out := b.op("Add", s+"/Add", []string{ffn, att})
	return b.layerNorm(s+"/full_layer_layer_norm", m+".full_layer_layer_norm", out, h, c.LayerNormEps)
}

// distilbert is DistilBERT: word and position embeddings, LayerNorm, then
// its transformer blocks (q_lin, k_lin, v_lin, out_lin, sa_layer_norm,
// ffn.lin1, ffn.lin2, output_layer_norm).
func distilbert(b *builder, c Config) string {
	const m = "distilbert.embeddings"
	h := c.Hidden
	words := b.param(m+".word_embeddings.weight", false, int64(c.VocabSize), int64(h))
	positions := b.param(m+".position_embeddings.weight", false, int64(c.MaxPositions), int64(h))
	w := b.op("Gather", "/distilbert/embeddings/word_embeddings/Gather", []string{words, "input_ids"})
	p := b.op("Gather", "/distilbert/embeddings/position_embeddings/Gather", []string{positions, b.seqRange("/distilbert/embeddings")})
	x := b.op("Add", "/distilbert/embeddings/Add", []string{w, p})
	x = b.layerNorm("/distilbert/embeddings/LayerNorm", m+".LayerNorm", x, h, 1e-12)
	mask := b.additiveMask("/distilbert")
	for i := range c.Layers {
		l := fmt.Sprintf("distilbert.transformer.layer.%d", i)
		s := scope(l)
		q := b.linear(s+"/attention/q_lin", l+".attention.q_lin", x, h, h, true)
		k := b.linear(s+"/attention/k_lin", l+".attention.k_lin", x, h, h, true)
		v := b.linear(s+"/attention/v_lin", l+".attention.v_lin", x, h, h, true)
		ctx := b.attention(s+"/attention", q, k, v, mask, c.Heads, c.HeadSize)
		sa := b.linear(s+"/attention/out_lin", l+".attention.out_lin", ctx, h, h, true)
		sa = b.op("Add", s+"/Add", []string{sa, x})
		sa = b.layerNorm(s+"/sa_layer_norm", l+".sa_layer_norm", sa, h, 1e-12)
		f := b.linear(s+"/ffn/lin1", l+".ffn.lin1", sa, h, c.Intermediate, true)
		f = b.act(s+"/ffn/activation", c.HiddenAct, f)
		f = b.linear(s+"/ffn/lin2", l+".ffn.lin2", f, c.Intermediate, h, true)
		f = b.op("Add", s+"/Add_1", []string{f, sa})
		x = b.layerNorm(s+"/output_layer_norm", l+".output_layer_norm", f, h, 1e-12)
	}
	return x
}

func first(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(append([]string(nil), names[:n]...), fmt.Sprintf("and %d more", len(names)-n))
}
