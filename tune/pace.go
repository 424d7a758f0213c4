package tune

import "go.uber.org/zap"

// The search learns from the run's own batches, so its cost is not their
// time but what they lose against the chosen shape; still, on a short run
// or a busy machine a full search (every layout, every neighbouring
// budget, the duel) can take most of the run. pace bounds it: the batches
// run while searching may stand for at most Options.Share of the class's
// projected run time, the wall time of its batches so far over the share
// of the run's work done. Early in a run, when every batch is a search
// batch, that is simply "the search ends by Share of the work". A search
// cut short keeps the best shape measured so far (or the one it started
// from), and the cache keeps the search as it stood (partial.go): the
// next run continues it.

// pace ends a search that has used its share of the run.
func (c *class) pace() {
	a := c.allowance(c.opt.Share)
	if c.phase == holding || a < 0 || c.cost.wall <= a {
		return
	}
	c.spent = true
	if s, ok := c.snapshot(); ok && !c.settled {
		c.paused = &s // for the cache: the next run continues from here
	}
	l, b := c.active, c.cmp.cur
	if c.phase == dueling || c.results[c.active].searched {
		if f := c.fastest(-1); f >= 0 {
			l, b = f, c.results[f].budget
		}
	} else if f := c.fastest(-1); f >= 0 && c.throughput(f) > c.cmp.acc[0].rate()*float64(c.alive[c.active]) {
		l, b = f, c.results[f].budget
	}
	untried := 0
	for i, r := range c.results {
		if !r.searched && i != c.active && !c.aside[i] {
			untried++
		}
	}
	c.probing = false
	c.keep(l)
	c.holdAt(b)
	c.log.Debug("search stopped at its share of the run: keeping the best shape so far; the cache keeps what was measured and the next run continues the search",
		zap.String("layout", c.spec.Layouts[l].String()), zap.Int("max_batch_tokens", c.budgets[b]), zap.Int("layouts_not_tried", untried),
		zap.Duration("searched", c.cost.wall), zap.Duration("projected_run", c.projected()), zap.Float64("share", c.opt.Share), zap.Int("batches_searching", c.cost.batches))
}

// mayResearch: a drift re-opens the search only while the run can afford it.
func (c *class) mayResearch() bool {
	a := c.allowance(c.opt.Share)
	return a < 0 || c.cost.wall < a
}
