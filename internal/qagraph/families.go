package qagraph

import (
	"fmt"

	"qa-shard/internal/onnxpb"
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
	b.fused, b.half = o.fused, o.half
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
	words := b.embeddingTable(m+".word_embeddings.weight", int64(c.VocabSize), int64(e))
	var types string
	if c.TypeVocab > 0 {
		types = b.embeddingTable(m+".token_type_embeddings.weight", int64(c.TypeVocab), int64(e))
	}
	positions := b.embeddingTable(m+".position_embeddings.weight", int64(c.MaxPositions), int64(e))
	roberta := c.ModelType == "roberta" || c.ModelType == "xlm-roberta" || c.ModelType == "camembert"
	if b.fused {
		return embedLayerNorm(b, c, s, m, words, types, positions, roberta, e)
	}
	w := b.op("Gather", s+"/word_embeddings/Gather", []string{words, "input_ids"})
	sum := w
	if types != "" {
		ids := "token_type_ids"
		if !c.TokenTypes() {
			ids = b.constI64(false, 0)
		}
		tt := b.op("Gather", s+"/token_type_embeddings/Gather", []string{types, ids})
		sum = b.op("Add", s+"/Add", []string{w, tt})
	}
	var pos string
	if roberta {
		pos = b.op("Gather", s+"/position_embeddings/Gather", []string{positions, robertaPositions(b, s, c.PadTokenID)})
	} else {
		pos = b.op("Gather", s+"/position_embeddings/Gather", []string{positions, b.seqRange(s)})
	}
	sum = b.op("Add", s+"/Add_1", []string{sum, pos})
	return b.layerNorm(s+"/LayerNorm", m+".LayerNorm", sum, e, c.LayerNormEps)
}

// embeddingTable is an embedding table: float32 in the fused graph
// (EmbedLayerNormalization sums and normalises in float32, also in a
// float16 graph), else of the graph's float type.
func (b *builder) embeddingTable(name string, rows, width int64) string {
	if b.fused {
		return b.paramOf(onnxpb.Float, name, false, rows, width)
	}
	return b.param(name, false, rows, width)
}

// embedLayerNorm is embeddings as one EmbedLayerNormalization node: its
// ids are int32; a family without a token_type_ids input gives segment
// ids of 0 (the table's row 0 for every token, as transformers adds it);
// RoBERTa's positions are given, BERT's are the node's own 0..seq-1.
func embedLayerNorm(b *builder, c Config, s, m, words, types, positions string, roberta bool, e int) string {
	int32Of := func(name, x string) string {
		return b.op("Cast", s+"/Cast_"+name, []string{x}, intAttr("to", int64(onnxpb.Int32)))
	}
	ids := int32Of("input_ids", "input_ids")
	segments := ""
	if types != "" {
		if c.TokenTypes() {
			segments = int32Of("token_type_ids", "token_type_ids")
		} else {
			segments = b.op("Sub", s+"/Sub_segments", []string{ids, ids})
		}
	}
	posIDs := ""
	if roberta {
		posIDs = int32Of("position_ids", robertaPositions(b, s, c.PadTokenID))
	}
	gamma := b.paramOf(onnxpb.Float, m+".LayerNorm.weight", false, int64(e))
	beta := b.paramOf(onnxpb.Float, m+".LayerNorm.bias", false, int64(e))
	in := []string{ids, segments, words, positions, types, gamma, beta, "", posIDs}
	for len(in) > 0 && in[len(in)-1] == "" {
		in = in[:len(in)-1]
	}
	// Its second output, mask_index, is required by ONNX Runtime's shape
	// inference and unused: Attention takes the raw 2-D mask.
	out := b.opN("EmbedLayerNormalization", s+"/EmbedLayerNormalization", in, 2, floatAttr("epsilon", float32(c.LayerNormEps)))
	b.g.nodes[len(b.g.nodes)-1].domain = msDomain
	if b.half {
		return b.op("Cast", s+"/Cast_float16", []string{out[0]}, intAttr("to", int64(onnxpb.Float16)))
	}
	return out[0]
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
	mask := b.attentionMask("/" + m)
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
	self := m + ".attention.self"
	ctx := b.selfAttention(s+"/attention/self", qkv{
		scopes:  [3]string{s + "/attention/self/query", s + "/attention/self/key", s + "/attention/self/value"},
		modules: [3]string{self + ".query", self + ".key", self + ".value"},
	}, x, mask, h, c.Heads, c.HeadSize)
	att := b.projectAddNorm(s+"/attention/output/dense", m+".attention.output.dense", s+"/attention/output/Add",
		s+"/attention/output/LayerNorm", m+".attention.output.LayerNorm", ctx, x, w, h, c.LayerNormEps)
	inter := b.projectAct(s+"/intermediate/dense", m+".intermediate.dense", s+"/intermediate/intermediate_act_fn", c.HiddenAct, att, h, c.Intermediate)
	return b.projectAddNorm(s+"/output/dense", m+".output.dense", s+"/output/Add", s+"/output/LayerNorm", m+".output.LayerNorm", inter, att, c.Intermediate, h, c.LayerNormEps)
}

// albert is ALBERT: embeddings of embedding_size, mapped to the hidden
// width, then num_hidden_layers passes through the shared layer groups.
func albert(b *builder, c Config) string {
	x := embeddings(b, c, "albert.embeddings", c.EmbeddingSize)
	x = b.linear("/albert/encoder/embedding_hidden_mapping_in", "albert.encoder.embedding_hidden_mapping_in", x, c.EmbeddingSize, c.Hidden, true)
	mask := b.attentionMask("/albert")
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
	ctx := b.selfAttention(s+"/attention", qkv{
		scopes:  [3]string{s + "/attention/query", s + "/attention/key", s + "/attention/value"},
		modules: [3]string{m + ".attention.query", m + ".attention.key", m + ".attention.value"},
	}, x, mask, h, c.Heads, c.HeadSize)
	att := b.projectAddNorm(s+"/attention/dense", m+".attention.dense", s+"/attention/residual/Add", s+"/attention/LayerNorm", m+".attention.LayerNorm", ctx, x, w, h, c.LayerNormEps)
	ffn := b.projectAct(s+"/ffn", m+".ffn", s+"/activation", c.HiddenAct, att, h, c.Intermediate)
	return b.projectAddNorm(s+"/ffn_output", m+".ffn_output", s+"/Add", s+"/full_layer_layer_norm", m+".full_layer_layer_norm", ffn, att, c.Intermediate, h, c.LayerNormEps)
}

// distilbert is DistilBERT: word and position embeddings, LayerNorm, then
// its transformer blocks (q_lin, k_lin, v_lin, out_lin, sa_layer_norm,
// ffn.lin1, ffn.lin2, output_layer_norm).
func distilbert(b *builder, c Config) string {
	const m = "distilbert.embeddings"
	h := c.Hidden
	words := b.embeddingTable(m+".word_embeddings.weight", int64(c.VocabSize), int64(h))
	positions := b.embeddingTable(m+".position_embeddings.weight", int64(c.MaxPositions), int64(h))
	var x string
	if b.fused {
		x = embedLayerNorm(b, Config{LayerNormEps: 1e-12}, "/distilbert/embeddings", m, words, "", positions, false, h)
	} else {
		w := b.op("Gather", "/distilbert/embeddings/word_embeddings/Gather", []string{words, "input_ids"})
		p := b.op("Gather", "/distilbert/embeddings/position_embeddings/Gather", []string{positions, b.seqRange("/distilbert/embeddings")})
		x = b.op("Add", "/distilbert/embeddings/Add", []string{w, p})
		x = b.layerNorm("/distilbert/embeddings/LayerNorm", m+".LayerNorm", x, h, 1e-12)
	}
	mask := b.attentionMask("/distilbert")
	for i := range c.Layers {
		l := fmt.Sprintf("distilbert.transformer.layer.%d", i)
		s := scope(l)
		ctx := b.selfAttention(s+"/attention", qkv{
			scopes:  [3]string{s + "/attention/q_lin", s + "/attention/k_lin", s + "/attention/v_lin"},
			modules: [3]string{l + ".attention.q_lin", l + ".attention.k_lin", l + ".attention.v_lin"},
		}, x, mask, h, c.Heads, c.HeadSize)
		sa := b.projectAddNorm(s+"/attention/out_lin", l+".attention.out_lin", s+"/Add", s+"/sa_layer_norm", l+".sa_layer_norm", ctx, x, h, h, 1e-12)
		f := b.projectAct(s+"/ffn/lin1", l+".ffn.lin1", s+"/ffn/activation", c.HiddenAct, sa, h, c.Intermediate)
		x = b.projectAddNorm(s+"/ffn/lin2", l+".ffn.lin2", s+"/Add_1", s+"/output_layer_norm", l+".output_layer_norm", f, sa, c.Intermediate, h, 1e-12)
	}
	return x
}

func first(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(append([]string(nil), names[:n]...), fmt.Sprintf("and %d more", len(names)-n))
}
