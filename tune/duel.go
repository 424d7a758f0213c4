package tune

import (
	"time"

	"go.uber.org/zap"
)

// duel alternates the two fastest layouts, each at its best budget, turn
// by turn (a turn: MinBatches batches per replica and at least MinTime),
// so that a change of the machine's load between their searches cannot
// pick the wrong one.
type duel struct {
	layouts [2]int
	side    int
	acc     [2]acc
	turns   [2]int
	turn    acc
}

// duelTurns is how many turns each layout gets.
const duelTurns = 2

// startDuel begins the duel between the two fastest searched layouts,
// with the one in use when it is one of them; false when there are not
// two.
func (c *class) startDuel() bool {
	first := c.fastest(-1)
	second := c.fastest(first)
	if first < 0 || second < 0 {
		return false
	}
	u := duel{layouts: [2]int{first, second}}
	if c.active == second {
		u.side = 1
	} else {
		c.switchTo(first)
	}
	c.phase, c.duel = dueling, u
	c.log.Debug("comparing the two fastest layouts in turns", zap.String("first", c.spec.Layouts[first].String()),
		zap.String("second", c.spec.Layouts[second].String()))
	return true
}

func (c *class) duelRan(tokens int, d time.Duration) {
	u := &c.duel
	u.acc[u.side].add(tokens, d)
	u.turn.add(tokens, d)
	if u.turn.n < c.opt.MinBatches*max(1, c.alive[c.active]) || u.turn.d < c.opt.MinTime {
		return
	}
	u.turn = acc{}
	u.turns[u.side]++
	if u.turns[0] < duelTurns || u.turns[1] < duelTurns {
		u.side = 1 - u.side
		c.switchTo(u.layouts[u.side])
		return
	}
	a, b := u.layouts[0], u.layouts[1]
	c.results[a].rate, c.results[b].rate = u.acc[0].rate(), u.acc[1].rate()
	win := a
	if c.throughput(b) > c.throughput(a) {
		win = b
	}
	c.log.Debug("layouts compared", zap.String("first", c.spec.Layouts[a].String()), zap.Float64("first_tokens_per_s", c.throughput(a)),
		zap.String("second", c.spec.Layouts[b].String()), zap.Float64("second_tokens_per_s", c.throughput(b)))
	c.keep(win)
	c.settle()
}
