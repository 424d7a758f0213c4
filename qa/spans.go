package qa

// span is one cell (i, j) of HF's score matrix M, M[i][j] = P_start[i] *
// P_end[j] inside the band i <= j < i+maxLen and 0 outside it. M is never
// materialised: only the band is visited, and the zeros outside it are
// produced from their flattened indices when HF could pick them.
type span struct {
	i, j  int
	score float32
}

// argmaxSpan is np.argmax over M flattened row-major: the first maximum.
// The band holds (0, 0), the first flattened cell, so when every cell is 0
// the answer is (0, 0) exactly as in numpy; a positive maximum can only lie
// in the band. A NaN wins at its first occurrence, as in np.argmax.
func argmaxSpan(ps, pe []float32, maxLen int) span {
	best := span{0, 0, ps[0] * pe[0]}
	if best.score != best.score {
		return best
	}
	n := len(ps)
	peMax := maxOf(pe)
	for i := range n {
		// Rounding is monotone, so no cell of row i can exceed
		// ps[i]*peMax: skipping such rows changes nothing.
		if ps[i]*peMax <= best.score {
			continue
		}
		for j := i; j < n && j < i+maxLen; j++ {
			v := ps[i] * pe[j]
			if v > best.score {
				best = span{i, j, v}
			} else if v != v {
				return span{i, j, v}
			}
		}
	}
	return best
}

// topSpans returns the k best cells of M by score descending.
//
// numpy orders ties arbitrarily here (np.argpartition and the unstable
// np.argsort of decode_spans); this takes ties by ascending flattened index,
// the order np.argmax uses for k = 1. When fewer than k cells are non-zero
// the rest are zero cells by ascending flattened index, the first of which
// are (0, 0), (0, 1), ...: row 0 is all zeros since [CLS] was masked.
// NaN scores sort after all numbers, like numpy's sort of -scores.
func topSpans(ps, pe []float32, maxLen, k int) []span {
	n := len(ps)
	k = min(k, n*n)
	best := make([]span, 0, k)
	peMax := maxOf(pe)
	for i := range n {
		if len(best) == k && !ranksBefore(span{score: ps[i] * peMax}, best[k-1]) {
			continue // as in argmaxSpan: nothing in this row can enter
		}
		for j := i; j < n && j < i+maxLen; j++ {
			v := ps[i] * pe[j]
			if v == 0 {
				continue
			}
			best = insertBest(best, span{i, j, v}, k)
		}
	}
	if len(best) == k {
		return best
	}
	for f := 0; len(best) < k && f < n*n; f++ {
		i, j := f/n, f%n
		if j >= i && j < i+maxLen && ps[i]*pe[j] != 0 {
			continue // already taken as a non-zero cell
		}
		best = append(best, span{i, j, 0})
	}
	return best
}

// insertBest keeps best sorted and at most k long. Cells arrive in
// ascending flattened order, so a new cell goes after its equals.
func insertBest(best []span, c span, k int) []span {
	if len(best) == k && !ranksBefore(c, best[k-1]) {
		return best
	}
	pos := len(best)
	for pos > 0 && ranksBefore(c, best[pos-1]) {
		pos--
	}
	if len(best) < k {
		best = append(best, span{})
	}
	copy(best[pos+1:], best[pos:len(best)-1])
	best[pos] = c
	return best
}

// ranksBefore says whether a strictly outranks b: higher score first, NaN
// last; equal scores keep arrival order.
func ranksBefore(a, b span) bool {
	if a.score != a.score {
		return false
	}
	return a.score > b.score || b.score != b.score
}

// maxOf is the largest value, or NaN if there is one (which disables the
// pruning that relies on it).
func maxOf(a []float32) float32 {
	var m float32
	for _, v := range a {
		if v != v {
			return v
		}
		m = max(m, v)
	}
	return m
}
