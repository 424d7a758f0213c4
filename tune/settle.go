package tune

import (
	"fmt"
	"time"

	"qa-shard/internal/words"

	"go.uber.org/zap"
)

// finish records the active layout's best budget; while probing it moves
// on to the next layout (starting from that budget), else it keeps the
// fastest layout, sets the others aside, and holds.
func (c *class) finish(rate float64) {
	c.results[c.active] = result{searched: true, budget: c.cmp.cur, rate: rate}
	if c.probing {
		for i := range c.spec.Layouts {
			if !c.results[i].searched && !c.aside[i] && c.alive[i] > 0 {
				c.log.Debug("layout measured; trying the next", zap.String("layout", c.spec.Layouts[c.active].String()),
					zap.Int("max_batch_tokens", c.budgets[c.cmp.cur]), zap.Float64("tokens_per_s", c.throughput(c.active)),
					zap.String("next", c.spec.Layouts[i].String()))
				c.switchTo(i)
				c.startSearch(c.cmp.cur)
				return
			}
		}
		c.probing = false
		if c.spec.Alternate && c.startDuel() {
			return
		}
		c.keep(c.fastest(-1))
	}
	c.settle()
}

// keep sets every layout but l aside for good and makes l the one in use.
func (c *class) keep(l int) {
	for i := range c.aside {
		c.aside[i] = c.aside[i] || i != l
	}
	c.switchTo(l)
}

// settle holds the active layout's best budget.
func (c *class) settle() {
	c.settled = true
	c.holdAt(c.results[c.active].budget)
	c.log.Debug("tuned", zap.String("layout", c.spec.Layouts[c.active].String()),
		zap.Int("max_batch_tokens", c.budgets[c.hold.budget]), zap.Float64("tokens_per_s", c.throughput(c.active)),
		zap.Int("batches_searching", c.cost.batches), zap.Int("retunes", c.retunes),
		zap.Int("runs", c.before.runs+1), zap.Int("batches_searching_all_runs", c.before.batches+c.cost.batches))
}

// fastest is the measured layout with the best throughput that can still
// run, other than skip; -1 if none.
func (c *class) fastest(skip int) int {
	best := -1
	for i, r := range c.results {
		if i == skip || c.aside[i] || c.alive[i] == 0 || !r.searched {
			continue
		}
		if best < 0 || c.throughput(i) > c.throughput(best) {
			best = i
		}
	}
	return best
}

// throughput is a layout's tokens per second: its rate per replica times
// the replicas running at once.
func (c *class) throughput(i int) float64 { return c.results[i].rate * float64(c.alive[i]) }

// holdRan watches the held choice: the first window of batches sets the
// reference rate; a later window off by more than Drift searches again
// around the held budget (the layout stays).
func (c *class) holdRan(tokens int, d time.Duration) {
	h := &c.hold
	h.win.add(tokens, d)
	if h.win.n < c.opt.Window || h.win.d < 10*c.opt.MinTime {
		return
	}
	r := h.win.rate()
	h.win, h.last = acc{}, r
	if h.ref == 0 {
		h.ref = r
		return
	}
	if r >= h.ref*(1-c.opt.Drift) && r <= h.ref*(1+c.opt.Drift) {
		h.strikes = 0
		return
	}
	// Two windows in a row: one slow window is often another process.
	if h.strikes++; h.strikes >= 2 {
		if !c.mayResearch() {
			h.strikes, h.ref = 0, r
			c.log.Debug("throughput drifted; the search's share of the run is spent: holding", zap.Float64("tokens_per_s", r*float64(c.alive[c.active])),
				zap.Int("max_batch_tokens", c.budgets[h.budget]))
			return
		}
		c.retunes++
		c.log.Debug("throughput drifted: searching the budget again", zap.Float64("tokens_per_s", r*float64(c.alive[c.active])),
			zap.Float64("was", h.ref*float64(c.alive[c.active])), zap.Int("max_batch_tokens", c.budgets[h.budget]))
		c.startSearch(h.budget)
	}
}

// outOfMemory lowers the layout's bound (two sessions share a device's
// memory, one has it all); a budget at or over it is never planned again
// for that layout (the batch itself is split by the scheduler).
func (c *class) outOfMemory(layout, padded int) {
	if b := c.bound[layout]; b != 0 && padded >= b {
		return
	}
	c.bound[layout] = padded
	c.log.Warn("out of memory: budgets from here up are not tried again with this layout",
		zap.String("layout", c.spec.Layouts[layout].String()), zap.Int("padded_tokens", padded))
	if layout != c.active {
		return
	}
	if c.phase == holding {
		if !c.valid(c.hold.budget) {
			c.holdAt(c.largestValid())
		}
		return
	}
	m := &c.cmp
	switch {
	case !c.valid(m.cur):
		c.startSearch(c.largestValid())
	case m.chal >= 0 && !c.valid(m.chal) && m.dir > 0 && !m.moved && c.valid(m.cur-1):
		m.dir = -1
		m.against(m.cur - 1)
	case m.chal >= 0 && !c.valid(m.chal):
		m.against(-1) // measure cur alone, then settle
	}
}

// retired: a layout left without replicas gives way to the fastest other
// one that can run.
func (c *class) retired(replica string, layout int) {
	if left := c.retire(replica, layout); layout != c.active || left > 0 {
		return
	}
	alt := c.fastest(layout)
	for i := range c.spec.Layouts {
		if alt < 0 && i != layout && !c.aside[i] && c.alive[i] > 0 {
			alt = i
		}
	}
	if alt < 0 {
		return
	}
	c.log.Warn("every replica of the layout failed: using another", zap.String("layout", c.spec.Layouts[alt].String()))
	c.switchTo(alt)
	if c.phase != holding || !c.results[alt].searched {
		c.probing = false
		c.startSearch(c.cmp.cur)
		return
	}
	c.holdAt(c.results[alt].budget)
}

// Choice is what a class runs with and what finding it cost.
type Choice struct {
	Class  string
	Layout string
	Budget int     // tokens per batch
	Rate   float64 // tokens/s of the class as last measured; 0: not measured
	// Source: "measured" (searched in this run), "cache", "pinned" by
	// flags, "unfinished" (the run ended before the search did) or
	// "partly measured" (the search stopped at its share of the run).
	Source   string
	Batches  int           // batches run while searching
	Searched time.Duration // wall time those batches took
	Overhead time.Duration // what they took beyond the chosen shape's speed
	Retunes  int           // searches again after a drift
	Bound    int           // padded tokens that ran out of memory; 0: none
}

func (c *class) choice() Choice {
	ch := Choice{Class: c.spec.Name, Layout: c.spec.Layouts[c.active].String(), Source: c.source,
		Batches: c.cost.batches, Searched: c.cost.wall, Retunes: c.retunes, Bound: c.bound[c.active]}
	ch.Budget = c.budgets[c.current()]
	switch {
	case c.spent && !c.settled:
		ch.Source = "partly measured: the search stopped at its share of the run"
	case !c.settled:
		ch.Source = "unfinished"
	}
	per := c.results[c.active].rate
	if c.phase == holding && c.hold.last > 0 {
		per = c.hold.last
	}
	ch.Rate = per * float64(c.alive[c.active])
	if ch.Rate > 0 {
		ideal := time.Duration(float64(c.cost.tokens) / ch.Rate * float64(time.Second))
		ch.Overhead = max(0, c.cost.wall-ideal)
	}
	return ch
}

func (ch Choice) String() string {
	s := fmt.Sprintf("%s: %s, %d tokens per batch (%s", ch.Class, ch.Layout, ch.Budget, ch.Source)
	if ch.Rate > 0 {
		s += fmt.Sprintf(", %.0f tokens/s", ch.Rate)
	}
	s += ")"
	if ch.Batches > 0 {
		s += fmt.Sprintf("; searching took %s, %s, about %s slower than the chosen shape",
			words.Count(ch.Batches, "batch", "batches"), ch.Searched.Round(time.Millisecond), ch.Overhead.Round(time.Millisecond))
	}
	if ch.Retunes > 0 {
		s += fmt.Sprintf("; searched again %s after drifts", words.Times(ch.Retunes))
	}
	if ch.Bound > 0 {
		s += fmt.Sprintf("; out of memory at %d tokens", ch.Bound)
	}
	return s
}

// entry is the class's choice for the cache: only what this run measured
// with nothing pinned by the user.
func (c *class) entry() (Entry, bool) {
	if !c.settled || c.spec.PinnedLayout || c.spec.PinnedBudget || (c.source == "cache" && c.retunes == 0) {
		return Entry{}, false
	}
	l := c.spec.Layouts[c.active]
	ch := c.choice()
	return Entry{Key: c.spec.Key, Sessions: l.Sessions, Threads: l.Threads, Budget: ch.Budget, TokensPerSecond: ch.Rate}, true
}

// partial is the class's unfinished search for the cache (partial.go):
// where its share of the run stopped it, or where the run ended; none
// when it settled, the user pinned a part of the shape, or nothing was
// measured.
func (c *class) partial() (Search, bool) {
	switch {
	case c.settled || c.spec.PinnedLayout || c.spec.PinnedBudget:
		return Search{}, false
	case c.spent:
		if c.paused == nil {
			return Search{}, false
		}
		return *c.paused, true
	}
	return c.snapshot()
}
