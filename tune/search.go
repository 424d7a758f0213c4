package tune

import "time"

// acc accumulates batches: their count, real tokens and device time.
type acc struct {
	n      int
	tokens int64
	d      time.Duration
}

func (a *acc) add(tokens int, d time.Duration) {
	a.n++
	a.tokens += int64(tokens)
	a.d += d
}

// rate is real tokens per second of device time, per replica.
func (a acc) rate() float64 {
	if a.d <= 0 {
		return 0
	}
	return float64(a.tokens) / a.d.Seconds()
}

// comparison measures two neighbouring budgets, cur and chal (indices into
// the class's budgets; chal -1 measures cur alone), batch by batch in
// turn, so a change of load on the machine hits both alike.
type comparison struct {
	cur, chal int
	dir       int  // +1 climbing to larger budgets, -1 to smaller
	moved     bool // cur has changed since the search began
	best      float64
	acc       [2]acc // 0: cur, 1: chal
	assigned  [2]int // batches planned per side
}

// next is the budget of the next batch: the side with fewer batches.
func (m *comparison) next(budgets []int) int {
	if m.chal < 0 {
		return budgets[m.cur]
	}
	side := 0
	if m.assigned[1] < m.assigned[0] {
		side = 1
	}
	m.assigned[side]++
	return budgets[m.index(side)]
}

func (m *comparison) index(side int) int {
	if side == 0 {
		return m.cur
	}
	return m.chal
}

// side says which side a batch cut at budget belongs to, or -1.
func (m *comparison) side(budgets []int, budget int) int {
	switch {
	case budget == budgets[m.cur]:
		return 0
	case m.chal >= 0 && budget == budgets[m.chal]:
		return 1
	}
	return -1
}

// against sets a new challenger with fresh measurements.
func (m *comparison) against(chal int) {
	m.chal = chal
	m.acc = [2]acc{}
	m.assigned = [2]int{}
}

// searchCost is what searching took: batches, the wall time they stood
// for (device time over the replicas running at once) and their tokens.
type searchCost struct {
	batches int
	wall    time.Duration
	tokens  int64
}
