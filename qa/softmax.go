package qa

import "math"

// maskedLogit is what HF writes over logits of tokens that cannot be part
// of an answer before the softmax.
const maskedLogit float32 = -10000.0

// softmax32 writes into dst the softmax of x as numpy computes it in
// float32 for `e = np.exp(x - x.max()); e / e.sum()`.
//
// How close to numpy: the max, the subtraction, the sum (numpy's pairwise
// summation, reproduced in pairwiseSum32) and the division are bit-exact.
// np.exp on float32 is not correctly rounded on x86-64 (numpy's own
// AVX2/AVX-512 kernel, documented at up to 2.52 ULP; libm elsewhere), while
// here exp is computed in float64 and rounded once. The probabilities
// therefore agree with numpy to a few ULP (relative error about 3e-7), and
// only near-exact ties between spans can resolve differently.
func softmax32(dst, x []float32) {
	if len(x) == 0 {
		return
	}
	m := x[0]
	for _, v := range x[1:] {
		if v > m || v != v { // np.max propagates NaN
			m = v
			if v != v {
				break
			}
		}
	}
	for i, v := range x {
		dst[i] = float32(math.Exp(float64(float32(v - m))))
	}
	sum := pairwiseSum32(dst[:len(x)])
	for i := range x {
		dst[i] /= sum
	}
}

// pairwiseBlock is numpy's PW_BLOCKSIZE.
const pairwiseBlock = 128

// pairwiseSum32 sums in float32 in numpy's order (pairwise_sum in
// loops_utils.h.src): below 8 elements a plain loop; up to 128 elements
// eight interleaved accumulators combined as a balanced tree, then the
// remainder; above that, two halves split at a multiple of 8.
func pairwiseSum32(a []float32) float32 {
	n := len(a)
	switch {
	case n < 8:
		var res float32
		for _, v := range a {
			res += v
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float32
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range r {
				r[k] += a[i+k]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum32(a[:n2]) + pairwiseSum32(a[n2:])
	}
}
