package tune

import (
	"slices"
	"time"
)

type phase int

const (
	searching phase = iota // climbing budgets on the active layout
	dueling                // the two fastest layouts alternate, to pick one
	holding                // a choice is in use; drift is watched
)

// result is a layout's best budget (index) and its rate per replica.
type result struct {
	searched bool
	budget   int
	rate     float64
}

// hold is the state while a choice is in use: drift is watched window by
// window against the first window's rate.
type hold struct {
	budget    int
	ref, last float64
	win       acc
	strikes   int // consecutive windows off the reference
}

// searchState is where a class's search stands: the candidate budgets,
// what each layout's search found, the phase (searching a layout's
// budget, dueling two layouts, or holding a choice) with its comparison,
// duel or held choice, and what searching cost.
type searchState struct {
	source  string // pinned, cache or measured
	budgets []int
	phase   phase
	active  int
	aside   []bool // layouts set aside for good
	results []result
	bound   []int // per layout: budgets from here up did not fit (0: none)
	cmp     comparison
	hold    hold
	duel    duel
	probing bool // the search measures every layout in turn
	settled bool // a choice was made (held) at least once
	cost    searchCost
	retunes int
	before  prior   // what earlier runs searched, when this one continues their search
	paused  *Search // the search as it stood when its share of the run was spent
}

func newSearchState(budgets []int, layouts int) searchState {
	return searchState{budgets: slices.Clone(budgets), aside: make([]bool, layouts), bound: make([]int, layouts),
		results: make([]result, layouts)}
}

func (s *searchState) valid(i int) bool {
	b := s.bound[s.active]
	return i >= 0 && i < len(s.budgets) && (b == 0 || s.budgets[i] < b)
}

// largestValid is the largest budget under the out-of-memory bound.
func (s *searchState) largestValid() int {
	for i := len(s.budgets) - 1; i > 0; i-- {
		if s.valid(i) {
			return i
		}
	}
	return 0
}

func (s *searchState) startSearch(i int) {
	if !s.valid(i) {
		i = s.largestValid()
	}
	s.phase = searching
	s.cmp = comparison{cur: i, dir: 1, chal: -1}
	switch {
	case s.valid(i + 1):
		s.cmp.against(i + 1)
	case s.valid(i - 1):
		s.cmp.dir = -1
		s.cmp.against(i - 1)
	}
}

func (s *searchState) holdAt(i int) {
	s.phase = holding
	s.hold = hold{budget: i}
}

// current is the index of the budget in use: held, dueled, or the one
// the comparison stands on.
func (s *searchState) current() int {
	switch s.phase {
	case holding:
		return s.hold.budget
	case dueling:
		return s.results[s.active].budget
	}
	return s.cmp.cur
}

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

func (s *searchCost) add(tokens int, wall time.Duration) {
	s.batches++
	s.wall += wall
	s.tokens += int64(tokens)
}
