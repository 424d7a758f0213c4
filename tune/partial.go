package tune

import (
	"slices"
	"time"

	"go.uber.org/zap"
)

// A search its share of the run cut short (Options.Share), or that the run
// ended before, is cached as it stands: which layouts were measured and
// at which budget, and the comparison or duel under way with the batches
// each side has run so far. The next run on the same machine kind (the
// same Key) continues it where it stopped, with a share of its own, so a
// series of short runs finishes one search between them instead of each
// starting it again; the run that finishes it caches the choice (Entry),
// which replaces the partial search.

// Search is a class's unfinished search as cached.
type Search struct {
	Key Key `json:"key"`
	// Layouts are the class's candidate layouts, in the order they are
	// measured, each with what its budget search found once it finished.
	Layouts []SearchLayout `json:"layouts"`
	Active  int            `json:"active"` // index in Layouts of the layout under measurement
	Compare *SearchCompare `json:"compare,omitempty"`
	Duel    *SearchDuel    `json:"duel,omitempty"` // set when every layout was measured and the fastest two alternate
	Batches int            `json:"batches"`        // batches searched so far, every run together
	Runs    int            `json:"runs"`           // runs that searched so far
	Written time.Time      `json:"written"`
}

// SearchLayout is one candidate layout and, once Measured, its best
// budget and rate per session.
type SearchLayout struct {
	Sessions int     `json:"sessions"`
	Threads  int     `json:"threads"`
	Measured bool    `json:"measured"`
	Budget   int     `json:"max_batch_tokens,omitempty"`
	Rate     float64 `json:"tokens_per_second_per_session,omitempty"`
}

// SearchCompare is the comparison of two neighbouring budgets under way
// on the active layout (Challenger 0: Budget measured alone).
type SearchCompare struct {
	Budget     int      `json:"max_batch_tokens"`
	Challenger int      `json:"challenger,omitempty"`
	Down       bool     `json:"down,omitempty"`  // climbing to smaller budgets
	Moved      bool     `json:"moved,omitempty"` // Budget is not where the search began
	Best       float64  `json:"best,omitempty"`
	Sides      [2]Tally `json:"sides"` // Budget's batches, the challenger's
}

// SearchDuel is the duel under way: the two fastest layouts' batches so
// far, the turns each had, the one whose turn it is and its turn's batches.
type SearchDuel struct {
	Side  int      `json:"side"`
	Sides [2]Tally `json:"sides"`
	Turns [2]int   `json:"turns"`
	Turn  Tally    `json:"turn"`
}

// Tally is measured batches: how many, their real tokens and device time.
type Tally struct {
	Batches int     `json:"batches"`
	Tokens  int64   `json:"tokens"`
	Seconds float64 `json:"seconds"`
}

func tally(a acc) Tally { return Tally{Batches: a.n, Tokens: a.tokens, Seconds: a.d.Seconds()} }

func (t Tally) acc() acc {
	return acc{n: t.Batches, tokens: t.Tokens, d: time.Duration(t.Seconds * float64(time.Second))}
}

// snapshot is the search as it stands, for the cache; false when nothing
// was measured yet (no layout finished, no batch compared).
func (c *class) snapshot() (Search, bool) {
	s := Search{Key: c.spec.Key, Active: c.active, Batches: c.before.batches + c.cost.batches, Runs: c.before.runs + 1}
	measured := false
	for i, l := range c.spec.Layouts {
		sl := SearchLayout{Sessions: l.Sessions, Threads: l.Threads}
		if r := c.results[i]; r.searched {
			sl.Measured, sl.Budget, sl.Rate = true, c.budgets[r.budget], r.rate
			measured = true
		}
		s.Layouts = append(s.Layouts, sl)
	}
	switch c.phase {
	case dueling:
		u := c.duel
		s.Duel = &SearchDuel{Side: u.side, Sides: [2]Tally{tally(u.acc[0]), tally(u.acc[1])}, Turns: u.turns, Turn: tally(u.turn)}
	case searching:
		m := c.cmp
		s.Compare = &SearchCompare{Budget: c.budgets[m.cur], Down: m.dir < 0, Moved: m.moved, Best: m.best,
			Sides: [2]Tally{tally(m.acc[0]), tally(m.acc[1])}}
		if m.chal >= 0 {
			s.Compare.Challenger = c.budgets[m.chal]
		}
		measured = measured || m.moved || m.acc[0].n > 0 || m.acc[1].n > 0
	}
	return s, measured
}

// resume continues the search the cache holds for this class, if it is
// one of this class's (the same candidate layouts, budgets on its ladder).
func (c *class) resume() bool {
	if c.opt.Cache == nil {
		return false
	}
	s, ok := c.opt.Cache.LookupSearch(c.spec.Key)
	if !ok {
		return false
	}
	if !c.fits(s) {
		c.opt.Cache.warn("the cached search does not fit this run's layouts or batch sizes: measuring again", c.spec.Key)
		return false
	}
	for i, l := range s.Layouts {
		if l.Measured {
			c.results[i] = result{searched: true, budget: slices.Index(c.budgets, l.Budget), rate: l.Rate}
		}
	}
	c.source, c.probing = "measured", slices.ContainsFunc(s.Layouts, func(l SearchLayout) bool { return !l.Measured })
	c.before = prior{batches: s.Batches, runs: s.Runs}
	c.active = s.Active
	switch {
	case s.Duel != nil && c.spec.Alternate && c.startDuel():
		u := &c.duel
		u.acc, u.turns, u.turn = [2]acc{s.Duel.Sides[0].acc(), s.Duel.Sides[1].acc()}, s.Duel.Turns, s.Duel.Turn.acc()
		u.side = s.Duel.Side
		c.active = u.layouts[u.side]
	case s.Duel != nil:
		c.keep(c.fastest(-1))
		c.settle()
	default:
		m := s.Compare
		c.phase = searching
		c.cmp = comparison{cur: slices.Index(c.budgets, m.Budget), chal: -1, dir: 1, moved: m.Moved, best: m.Best}
		if m.Down {
			c.cmp.dir = -1
		}
		if m.Challenger > 0 {
			c.cmp.chal = slices.Index(c.budgets, m.Challenger)
		}
		c.cmp.acc = [2]acc{m.Sides[0].acc(), m.Sides[1].acc()}
		c.cmp.assigned = [2]int{m.Sides[0].Batches, m.Sides[1].Batches}
	}
	measured := 0
	for _, l := range s.Layouts {
		if l.Measured {
			measured++
		}
	}
	c.log.Debug("continuing the search the cache holds", zap.Int("runs_before", s.Runs), zap.Int("batches_before", s.Batches),
		zap.Int("layouts_measured", measured), zap.Int("layouts", len(s.Layouts)), zap.String("layout", c.spec.Layouts[c.active].String()))
	return true
}

// fits: the cached search has this class's layouts in its order, and
// every budget it names is on this class's ladder.
func (c *class) fits(s Search) bool {
	if len(s.Layouts) != len(c.spec.Layouts) || s.Active < 0 || s.Active >= len(s.Layouts) || (s.Compare == nil) == (s.Duel == nil) {
		return false
	}
	on := func(b int) bool { return slices.Contains(c.budgets, b) }
	for i, l := range s.Layouts {
		if l.Sessions != c.spec.Layouts[i].Sessions || l.Threads != c.spec.Layouts[i].Threads || (l.Measured && !on(l.Budget)) {
			return false
		}
	}
	if m := s.Compare; m != nil {
		if !on(m.Budget) || (m.Challenger != 0 && !on(m.Challenger)) || s.Layouts[s.Active].Measured {
			return false
		}
	}
	if u := s.Duel; u != nil && (u.Side < 0 || u.Side > 1) {
		return false
	}
	return true
}

// prior is what the runs before this one searched (a continued search).
type prior struct {
	batches, runs int
}
