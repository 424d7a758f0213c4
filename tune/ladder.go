package tune

// The candidate budgets are whole rows of the longest window: a CPU is
// fastest with a few rows (the attention scores of many rows leave its
// caches), a GPU needs hundreds to stay busy.

// CPUBudgets are 1 to 16 rows of maxSeqLen tokens; the search starts at 2.
func CPUBudgets(maxSeqLen int) (budgets []int, start int) {
	return rows(maxSeqLen, 1, 16), 1
}

// GPUBudgets are 8 to 1024 rows of maxSeqLen tokens; the search starts at
// 64 and out of memory bounds it.
func GPUBudgets(maxSeqLen int) (budgets []int, start int) {
	return rows(maxSeqLen, 8, 1024), 3
}

func rows(l, from, to int) []int {
	var out []int
	for r := from; r <= to; r *= 2 {
		out = append(out, r*l)
	}
	return out
}
