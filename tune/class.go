package tune

import (
	"slices"
	"time"

	"go.uber.org/zap"
)

// class is the tuner's state for one class of devices: the search
// (search.go), its replicas' bookkeeping (replicas.go) and its account of
// the run's share (share.go), composed by the methods that decide.
type class struct {
	spec Class
	opt  *Options
	log  *zap.Logger
	searchState
	replicas
	share
}

func newClass(spec Class, opt *Options) *class {
	n := len(spec.Layouts)
	c := &class{spec: spec, opt: opt, log: opt.Logger.With(zap.String("class", spec.Name)),
		searchState: newSearchState(spec.Budgets, n), replicas: newReplicas(spec.Layouts)}
	start := min(max(spec.Start, 0), len(c.budgets)-1)
	switch {
	case c.fromCache():
	case n == 1 && len(c.budgets) == 1:
		c.source, c.settled = "pinned", true
		c.holdAt(0)
	case !spec.PinnedLayout && !spec.PinnedBudget && c.resume():
	default:
		c.source, c.probing = "measured", n > 1
		c.startSearch(start)
	}
	c.initial = c.active
	return c
}

// fromCache starts from a cached choice when one fits this class.
func (c *class) fromCache() bool {
	if c.opt.Cache == nil {
		return false
	}
	e, ok := c.opt.Cache.Lookup(c.spec.Key)
	if !ok {
		return false
	}
	li := slices.IndexFunc(c.spec.Layouts, func(l Layout) bool { return l.Sessions == e.Sessions && l.Threads == e.Threads })
	switch {
	case len(c.spec.Layouts) == 1:
		li = 0 // the layout is pinned: take the cached budget only
	case li < 0:
		c.opt.Cache.warn("the cached layout is not one this machine can run: ignored", c.spec.Key,
			zap.Int("sessions", e.Sessions), zap.Int("threads", e.Threads))
		return false
	}
	bi := 0
	if len(c.budgets) > 1 {
		if i, found := slices.BinarySearch(c.budgets, e.Budget); found {
			bi = i
		} else {
			c.budgets = slices.Insert(c.budgets, i, e.Budget)
			bi = i
		}
	}
	for i := range c.aside {
		c.aside[i] = i != li
	}
	c.active, c.source, c.settled = li, "cache", true
	c.results[li] = result{searched: true, budget: bi, rate: e.TokensPerSecond / float64(max(1, c.alive[li]))}
	c.holdAt(bi)
	c.log.Debug("tuning from the cache", zap.String("layout", c.spec.Layouts[li].String()), zap.Int("max_batch_tokens", c.budgets[bi]))
	return true
}

func (c *class) budget(replica string, layout int) int {
	var b int
	switch {
	case c.aside[layout]:
		return -1
	case layout != c.active || c.draining():
		return 0
	case c.phase == holding:
		b = c.budgets[c.hold.budget]
	case c.phase == dueling:
		b = c.budgets[c.results[c.active].budget]
	default:
		b = c.cmp.next(c.budgets)
	}
	c.planned(replica)
	return b
}

func (c *class) ran(replica string, layout, budget, tokens int, d time.Duration) {
	c.reported(replica)
	// A starting session's first batch warms it up whatever the shape: it
	// is no cost of the search and no measure of the run's pace.
	if !c.opening(replica, layout) {
		c.took(c.perReplica(d, layout))
		if c.phase != holding {
			c.cost.add(tokens, c.perReplica(d, layout))
		}
	}
	if layout != c.active || budget == 0 {
		return
	}
	if c.warmUp(replica) {
		return // a first batch pays for warming up: not a measure
	}
	switch c.phase {
	case holding:
		c.holdRan(tokens, d)
		return
	case dueling:
		c.duelRan(tokens, d)
		return
	}
	side := c.cmp.side(c.budgets, budget)
	if side < 0 {
		return
	}
	c.cmp.acc[side].add(tokens, d)
	c.decide()
}

func (c *class) enough(a acc) bool { return a.n >= c.opt.MinBatches && a.d >= c.opt.MinTime }

// decide ends a comparison once both sides are measured well enough (or
// after two batches each when they differ widely): climb on when the
// challenger wins, turn around once when the first step up loses, or
// settle.
func (c *class) decide() {
	m := &c.cmp
	a, b := m.acc[0], m.acc[1]
	if m.chal < 0 {
		if c.enough(a) {
			c.finish(a.rate())
		}
		return
	}
	ra, rb := a.rate(), b.rate()
	wide := a.n >= 2 && b.n >= 2 && (rb > ra*(1+c.opt.EarlyGap) || ra > rb*(1+c.opt.EarlyGap))
	if !wide && !(c.enough(a) && c.enough(b)) {
		return
	}
	c.log.Debug("budgets compared", zap.Int("budget", c.budgets[m.cur]), zap.Float64("tokens_per_s", ra),
		zap.Int("challenger", c.budgets[m.chal]), zap.Float64("challenger_tokens_per_s", rb))
	switch {
	case rb > ra*(1+c.opt.Margin):
		m.cur, m.moved, m.best = m.chal, true, rb
		c.challenge(m.cur + m.dir)
	case m.dir > 0 && !m.moved:
		m.best, m.dir = ra, -1
		c.challenge(m.cur - 1)
	default:
		c.finish(ra)
	}
}

// challenge compares cur with the budget at i, or settles when there is
// none.
func (c *class) challenge(i int) {
	if c.valid(i) {
		c.cmp.against(i)
		return
	}
	c.finish(c.cmp.best)
}

// switchTo makes layout i the one in use, once the batches of the layout
// in use before have finished (so the two never share the device while
// measured); its replicas' next batch is a warm-up again (a session may
// be new).
func (c *class) switchTo(i int) {
	if i == c.active {
		return
	}
	c.move(c.active, i)
	c.active = i
}
