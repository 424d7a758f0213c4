package tune

import (
	"slices"
	"time"

	"go.uber.org/zap"
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

// class is the tuner's state for one class of devices.
type class struct {
	spec    Class
	opt     *Options
	log     *zap.Logger
	budgets []int
	phase   phase
	active  int
	aside   []bool // layouts set aside for good
	alive   []int  // replicas not retired, per layout
	results []result
	bound   []int // per layout: budgets from here up did not fit (0: none)
	cmp     comparison
	hold    hold
	warm    map[string]bool // replicas whose first batch in the layout was seen
	out     map[string]int  // batches planned and not yet reported, per replica
	dead    map[string]bool // replicas retired after failures
	drain   int             // layout whose batches must finish before the active one starts; -1 none
	duel    duel
	source  string // pinned, cache or measured
	probing bool   // the search measures every layout in turn
	settled bool   // a choice was made (held) at least once
	cost    searchCost
	retunes int
	all     time.Duration // wall time of all the class's batches (device time over replicas at once)
	spent   bool          // the search used its share of the run (Options.Share)
	done    float64       // share of the run's work done (Tuner.Done)
	initial int           // the layout the run started with
	opened  map[string]bool
	before  prior   // what earlier runs searched, when this one continues their search
	paused  *Search // the search as it stood when its share of the run was spent
}

func newClass(spec Class, opt *Options) *class {
	n := len(spec.Layouts)
	c := &class{spec: spec, opt: opt, log: opt.Logger.With(zap.String("class", spec.Name)),
		budgets: slices.Clone(spec.Budgets), aside: make([]bool, n), alive: make([]int, n), bound: make([]int, n),
		results: make([]result, n), warm: map[string]bool{}, out: map[string]int{}, dead: map[string]bool{}, drain: -1,
		opened: map[string]bool{}}
	for i, l := range spec.Layouts {
		c.alive[i] = len(l.Replicas)
	}
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
	c.log.Info("tuning from the cache", zap.String("layout", c.spec.Layouts[li].String()), zap.Int("max_batch_tokens", c.budgets[bi]))
	return true
}

func (c *class) budget(replica string, layout int) int {
	var b int
	switch {
	case c.aside[layout]:
		return -1
	case layout != c.active || c.drain >= 0:
		return 0
	case c.phase == holding:
		b = c.budgets[c.hold.budget]
	case c.phase == dueling:
		b = c.budgets[c.results[c.active].budget]
	default:
		b = c.cmp.next(c.budgets)
	}
	c.out[replica]++
	return b
}

func (c *class) ran(replica string, layout, budget, tokens int, d time.Duration) {
	c.out[replica] = max(0, c.out[replica]-1)
	if c.drain >= 0 && c.drained(c.drain) {
		c.drain = -1
	}
	// A starting session's first batch warms it up whatever the shape: it
	// is no cost of the search and no measure of the run's pace.
	if !c.opening(replica, layout) {
		c.all += d / time.Duration(max(1, c.alive[layout]))
		if c.phase != holding {
			c.cost.batches++
			c.cost.wall += d / time.Duration(max(1, c.alive[layout]))
			c.cost.tokens += int64(tokens)
		}
	}
	if layout != c.active || budget == 0 {
		return
	}
	if !c.warm[replica] {
		c.warm[replica] = true // a first batch pays for warming up: not a measure
		return
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

func (c *class) valid(i int) bool {
	b := c.bound[c.active]
	return i >= 0 && i < len(c.budgets) && (b == 0 || c.budgets[i] < b)
}

// largestValid is the largest budget under the out-of-memory bound.
func (c *class) largestValid() int {
	for i := len(c.budgets) - 1; i > 0; i-- {
		if c.valid(i) {
			return i
		}
	}
	return 0
}

func (c *class) startSearch(i int) {
	if !c.valid(i) {
		i = c.largestValid()
	}
	c.phase = searching
	c.cmp = comparison{cur: i, dir: 1, chal: -1}
	switch {
	case c.valid(i + 1):
		c.cmp.against(i + 1)
	case c.valid(i - 1):
		c.cmp.dir = -1
		c.cmp.against(i - 1)
	}
}

func (c *class) holdAt(i int) {
	c.phase = holding
	c.hold = hold{budget: i}
}

// drained: no batch of layout l's live replicas is still running.
func (c *class) drained(l int) bool {
	for _, name := range c.spec.Layouts[l].Replicas {
		if c.out[name] > 0 && !c.dead[name] {
			return false
		}
	}
	return true
}

// switchTo makes layout i the one in use, once the batches of the layout
// in use before have finished (so the two never share the device while
// measured); its replicas' next batch is a warm-up again (a session may
// be new).
func (c *class) switchTo(i int) {
	if i == c.active {
		return
	}
	if !c.drained(c.active) {
		c.drain = c.active
	}
	c.active = i
	for _, name := range c.spec.Layouts[i].Replicas {
		delete(c.warm, name)
	}
}
