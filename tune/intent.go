package tune

import (
	"fmt"

	"qa-shard/internal/words"
)

// Intent says, per class, what the run starts with and what it will
// measure, for the start-up line. It names only the layout the search
// starts with: the others are tried only while the search's share of the
// run lasts, and each is named in its own line when it starts ("layout
// measured; trying the next"). For example "cpu: measuring the batch size
// with 2 sessions x 1 thread, for at most 2% of the run; 1 other layout is
// measured after it while that share lasts, the rest by the next run
// (tuning cache)".
func (t *Tuner) Intent() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, c := range t.classes {
		l := c.spec.Layouts[c.active]
		share := fmt.Sprintf("for at most %.0f%% of the run", 100*c.opt.Share)
		from := ""
		if c.before.runs > 0 {
			from = "continuing the search of " + words.Count(c.before.runs, "earlier run", "earlier runs") + " (tuning cache): "
		}
		switch {
		case c.phase == holding:
			out = append(out, fmt.Sprintf("%s: %s, %d tokens per batch (%s)", c.spec.Name, l, c.budgets[c.hold.budget], c.source))
		case c.phase == dueling:
			out = append(out, fmt.Sprintf("%s: %scomparing the two fastest layouts measured in turns, starting with %s, %s", c.spec.Name, from, l, share))
		case c.probing:
			left := 0
			for i, r := range c.results {
				if !r.searched && i != c.active && !c.aside[i] {
					left++
				}
			}
			out = append(out, fmt.Sprintf("%s: %smeasuring the batch size with %s, %s; %d other layout%s measured after it while that share lasts, the rest by the next run (tuning cache)",
				c.spec.Name, from, l, share, left, map[bool]string{true: " is", false: "s are"}[left == 1]))
		default:
			out = append(out, fmt.Sprintf("%s: %s%s; measuring the batch size %s", c.spec.Name, from, l, share))
		}
	}
	return out
}
