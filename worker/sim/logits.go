package sim

import "qa-shard/qa"

// PadLogit is what padding positions get: far above every real logit, so
// a decoder that let padding leak into span selection would pick it.
const PadLogit = 50

// startLogit is the start logit of token id at position pos of its window,
// in [-5, 5). It depends on the position within the window, not on the
// row or the batch's padded length, so a window has the same logits alone
// or inside any batch, as a real model does; and on the id, so a shifted
// or mixed-up row changes the answer.
func startLogit(id int64, pos int) float32 { return logit(id, pos, 0x9e3779b97f4a7c15) }

// endLogit is the end logit of token id at position pos, like StartLogit
// with another hash.
func endLogit(id int64, pos int) float32 { return logit(id, pos, 0xc2b2ae3d27d4eb4f) }

func logit(id int64, pos int, salt uint64) float32 {
	h := mix(uint64(id)*salt ^ uint64(pos)<<32 ^ salt)
	return float32(h%1000)/100 - 5
}

// logits computes the batch's logits: StartLogit/EndLogit for attended
// positions, PadLogit for padding.
func logits(b qa.Batch) qa.Logits {
	n := b.Rows * b.Len
	out := qa.Logits{Start: make([]float32, n), End: make([]float32, n)}
	for i := range n {
		if b.AttentionMask[i] == 0 {
			out.Start[i], out.End[i] = PadLogit, PadLogit
			continue
		}
		pos := i % b.Len
		out.Start[i], out.End[i] = startLogit(b.InputIDs[i], pos), endLogit(b.InputIDs[i], pos)
	}
	return out
}

// batchHash digests the batch's shape and ids with the seed; it drives the
// jitter, so a batch's delay does not depend on which replica pulls it.
func batchHash(b qa.Batch, seed uint64) uint64 {
	h := mix(seed ^ uint64(b.Rows)<<32 ^ uint64(b.Len))
	for _, id := range b.InputIDs {
		h = (h ^ uint64(id)) * 0x100000001b3
	}
	return mix(h)
}

// mix is splitmix64's finalizer: every input bit affects every output bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps a hash to [-1, 1).
func unit(h uint64) float64 {
	return float64(h>>11)/float64(uint64(1)<<53)*2 - 1
}
