package qagraph

import (
	"fmt"
	"math"
	"slices"
)

// deberta is DeBERTa-v2/v3 (DebertaV2Model): embeddings (positions only
// when position_biased_input, projected by embed_proj when narrower,
// LayerNorm, zeroed at padding), then layers of disentangled attention:
// content-to-content plus, per pos_att_type, content-to-position (c2p)
// and position-to-content (p2c) scores against the relative position
// embeddings (rel_embeddings, LayerNorm'd when norm_rel_ebd says so),
// indexed by the log-bucketed distance between tokens. The position
// indices depend only on the sequence length, so they are tables here,
// computed as transformers computes them (make_log_bucket_position, in
// float32) for every distance up to max_position_embeddings.
func deberta(b *builder, c Config) string {
	const m = "deberta"
	x := debertaEmbeddings(b, c)
	if !c.RelativeAttention {
		c.PosAttType = nil // transformers builds no relative terms then
	}
	span, maxRel := c.relativeSpan()
	var rel string
	var c2pIdx, p2cIdx string
	if c.RelativeAttention {
		rel = b.param(m+".encoder.rel_embeddings.weight", false, int64(2*span), int64(c.Hidden))
		if slices.Contains(c.NormRelEbd, "layer_norm") {
			rel = b.norm("/deberta/encoder/LayerNorm", m+".encoder.LayerNorm", rel, c.Hidden, c.LayerNormEps)
		}
		c2pIdx, p2cIdx = relativeIndices(b, c, span, maxRel)
	}
	mask := b.additiveMask("/deberta")
	for i := range c.Layers {
		x = debertaLayer(b, c, fmt.Sprintf("%s.encoder.layer.%d", m, i), x, mask, rel, c2pIdx, p2cIdx)
	}
	return x
}

// relativeSpan is the number of relative embeddings on each side
// (pos_ebd_size: position_buckets, else max_relative_positions) and the
// max_position make_log_bucket_position is given.
func (c Config) relativeSpan() (span, maxRel int) {
	maxRel = c.MaxRelativePositions
	if maxRel < 1 {
		maxRel = c.MaxPositions
	}
	span = maxRel
	if c.PositionBuckets > 0 {
		span = c.PositionBuckets
	}
	return span, maxRel
}

func debertaEmbeddings(b *builder, c Config) string {
	const m, s = "deberta.embeddings", "/deberta/embeddings"
	e := c.EmbeddingSize
	words := b.param(m+".word_embeddings.weight", false, int64(c.VocabSize), int64(e))
	x := b.op("Gather", s+"/word_embeddings/Gather", []string{words, "input_ids"})
	if c.PositionBiasedInput {
		positions := b.param(m+".position_embeddings.weight", false, int64(c.MaxPositions), int64(e))
		p := b.op("Gather", s+"/position_embeddings/Gather", []string{positions, b.seqRange(s)})
		x = b.op("Add", s+"/Add", []string{x, p})
	}
	if c.TypeVocab > 0 {
		types := b.param(m+".token_type_embeddings.weight", false, int64(c.TypeVocab), int64(e))
		t := b.op("Gather", s+"/token_type_embeddings/Gather", []string{types, "token_type_ids"})
		x = b.op("Add", s+"/Add_1", []string{x, t})
	}
	if e != c.Hidden {
		x = b.linear(s+"/embed_proj", m+".embed_proj", x, e, c.Hidden, false)
	}
	x = b.norm(s+"/LayerNorm", m+".LayerNorm", x, c.Hidden, c.LayerNormEps)
	u := b.op("Unsqueeze", s+"/Unsqueeze", []string{"attention_mask", b.constI64(true, 2)})
	f := b.op("Cast", s+"/Cast", []string{u}, intAttr("to", int64(b.float())))
	return b.op("Mul", s+"/Mul", []string{x, f})
}

// relativeIndices are the [seq, seq] index matrices of c2p and p2c: for
// row r and column c the relative position is bucket(r - c); c2p takes
// clamp(rel + span, 0, 2 span - 1), p2c clamp(-rel + span, ...). Both are
// gathered from 1-D tables over every distance the graph can meet.
func relativeIndices(b *builder, c Config, span, maxRel int) (c2p, p2c string) {
	const s = "/deberta/encoder/rel_pos"
	reach := c.MaxPositions - 1
	c2pTab := make([]int64, 2*reach+1)
	p2cTab := make([]int64, 2*reach+1)
	for d := -reach; d <= reach; d++ {
		r := int64(d)
		if c.PositionBuckets > 0 && maxRel > 0 {
			r = logBucket(d, c.PositionBuckets, maxRel)
		}
		c2pTab[d+reach] = clamp(r+int64(span), 0, int64(2*span-1))
		p2cTab[d+reach] = clamp(-r+int64(span), 0, int64(2*span-1))
	}
	n := int64(len(c2pTab))
	c2pT := b.tableI64("deberta.rel_pos.c2p", []int64{n}, c2pTab)
	p2cT := b.tableI64("deberta.rel_pos.p2c", []int64{n}, p2cTab)
	ids := b.seqRange(s)
	rows := b.op("Unsqueeze", s+"/Unsqueeze", []string{ids, b.constI64(true, 1)})
	cols := b.op("Unsqueeze", s+"/Unsqueeze_1", []string{ids, b.constI64(true, 0)})
	diff := b.op("Sub", s+"/Sub", []string{rows, cols})
	diff = b.op("Add", s+"/Add", []string{diff, b.constI64(false, int64(reach))})
	c2p = b.op("Gather", s+"/c2p/Gather", []string{c2pT, diff})
	p2c = b.op("Gather", s+"/p2c/Gather", []string{p2cT, diff})
	return c2p, p2c
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// logBucket is transformers' make_log_bucket_position for one distance,
// in torch's float32 arithmetic: distances within bucket_size/2 stay as
// they are, farther ones are binned logarithmically up to max_position.
func logBucket(rel, bucketSize, maxPosition int) int64 {
	mid := bucketSize / 2
	abs := rel
	if rel < mid && rel > -mid {
		abs = mid - 1
	} else if abs < 0 {
		abs = -abs
	}
	if abs <= mid {
		return int64(rel)
	}
	num := log32(float32(abs) / float32(mid))
	den := log32(float32(float64(maxPosition-1) / float64(mid)))
	logPos := float32(math.Ceil(float64(num/den*float32(mid-1)))) + float32(mid)
	sign := int64(1)
	if rel < 0 {
		sign = -1
	}
	return int64(logPos) * sign
}

// log32 is a float32 logarithm, correctly rounded from float64.
func log32(x float32) float32 { return float32(math.Log(float64(x))) }

// debertaLayer is one DebertaV2Layer: disentangled self attention, its
// output projection with residual and LayerNorm, the intermediate
// projection and activation, the output projection with residual and
// LayerNorm.
func debertaLayer(b *builder, c Config, m, x, mask, rel, c2pIdx, p2cIdx string) string {
	s := scope(m)
	h, heads, size := c.Hidden, c.Heads, c.HeadSize
	w := heads * size
	sa := m + ".attention.self"
	q := b.heads(s+"/query", b.linear(s+"/query_proj", sa+".query_proj", x, h, w, true), heads, size, 0, 2, 1, 3)
	kFlat := b.linear(s+"/key_proj", sa+".key_proj", x, h, w, true)
	k := b.heads(s+"/key", kFlat, heads, size, 0, 2, 1, 3)
	v := b.heads(s+"/value", b.linear(s+"/value_proj", sa+".value_proj", x, h, w, true), heads, size, 0, 2, 1, 3)
	factor := 1 + len(c.PosAttType)
	scale := b.scalarF32(float32(math.Sqrt(float64(size * factor))))

	kt := b.op("Transpose", s+"/key/TransposeT", []string{k}, intsAttr("perm", 0, 1, 3, 2))
	scores := b.op("MatMul", s+"/MatMul", []string{q, kt})
	if slices.Contains(c.PosAttType, "c2p") {
		posKey := c.relProj(b, s+"/pos_key", sa, "key_proj", "pos_key_proj", rel)
		pk := b.op("Transpose", s+"/pos_key/TransposeT", []string{posKey}, intsAttr("perm", 0, 1, 3, 2))
		att := b.op("MatMul", s+"/c2p/MatMul", []string{q, pk}) // [batch, heads, seq, 2 span]
		idx := b.op("Expand", s+"/c2p/Expand", []string{c2pIdx, b.op("Shape", s+"/c2p/Shape", []string{scores})})
		att = b.op("GatherElements", s+"/c2p/GatherElements", []string{att, idx}, intAttr("axis", -1))
		scores = b.op("Add", s+"/c2p/Add", []string{scores, att})
	}
	if slices.Contains(c.PosAttType, "p2c") {
		posQuery := c.relProj(b, s+"/pos_query", sa, "query_proj", "pos_query_proj", rel)
		pq := b.op("Transpose", s+"/pos_query/TransposeT", []string{posQuery}, intsAttr("perm", 0, 1, 3, 2))
		att := b.op("MatMul", s+"/p2c/MatMul", []string{k, pq}) // [batch, heads, key, 2 span]
		idx := b.op("Expand", s+"/p2c/Expand", []string{p2cIdx, b.op("Shape", s+"/p2c/Shape", []string{scores})})
		att = b.op("GatherElements", s+"/p2c/GatherElements", []string{att, idx}, intAttr("axis", -1))
		att = b.op("Transpose", s+"/p2c/Transpose", []string{att}, intsAttr("perm", 0, 1, 3, 2))
		scores = b.op("Add", s+"/p2c/Add", []string{scores, att})
	}
	scores = b.op("Div", s+"/Div", []string{scores, scale})
	scores = b.op("Add", s+"/Add", []string{scores, mask})
	probs := b.op("Softmax", s+"/Softmax", []string{scores}, intAttr("axis", -1))
	ctx := b.merge(s+"/context", b.op("MatMul", s+"/MatMul_1", []string{probs, v}), w)

	att := b.projectAddNorm(s+"/attention/output/dense", m+".attention.output.dense", s+"/attention/output/Add",
		s+"/attention/output/LayerNorm", m+".attention.output.LayerNorm", ctx, x, w, h, c.LayerNormEps)
	inter := b.projectAct(s+"/intermediate/dense", m+".intermediate.dense", s+"/intermediate/intermediate_act_fn", c.HiddenAct, att, h, c.Intermediate)
	return b.projectAddNorm(s+"/output/dense", m+".output.dense", s+"/output/Add", s+"/output/LayerNorm", m+".output.LayerNorm", inter, att, c.Intermediate, h, c.LayerNormEps)
}

// relProj projects the relative embeddings [2 span, hidden] with the
// layer's own projection (share_att_key) or its positional one, into
// [1, heads, 2 span, size].
func (c Config) relProj(b *builder, s, sa, shared, own, rel string) string {
	name := own
	if c.ShareAttKey {
		name = shared
	}
	w := c.Heads * c.HeadSize
	p := b.linear(s+"/"+name, sa+"."+name, rel, c.Hidden, w, true)
	r := b.op("Reshape", s+"/Reshape", []string{p, b.constI64(true, 1, -1, int64(c.Heads), int64(c.HeadSize))})
	return b.op("Transpose", s+"/Transpose", []string{r}, intsAttr("perm", 0, 2, 1, 3))
}
