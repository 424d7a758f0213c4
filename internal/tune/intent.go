package tune

import (
	"fmt"
	"strings"
)

// Intent says, per class, what the run starts with and what it will
// measure, for the start-up line: "cpu: measuring 2 layouts (2 sessions x
// 1 thread, then 1 session x 2 threads) and the batch size for at most 2%
// of the run, starting with 2 sessions x 1 thread".
func (t *Tuner) Intent() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, c := range t.classes {
		l := c.spec.Layouts[c.active]
		switch {
		case c.phase == holding:
			out = append(out, fmt.Sprintf("%s: %s, %d tokens per batch (%s)", c.spec.Name, l, c.budgets[c.hold.budget], c.source))
		case len(c.spec.Layouts) > 1:
			names := make([]string, len(c.spec.Layouts))
			for i, x := range c.spec.Layouts {
				names[i] = x.String()
			}
			out = append(out, fmt.Sprintf("%s: measuring %d layouts (%s) and the batch size for at most %.0f%% of the run, starting with %s",
				c.spec.Name, len(names), strings.Join(names, ", then "), 100*c.opt.Share, l))
		default:
			out = append(out, fmt.Sprintf("%s: %s; measuring the batch size for at most %.0f%% of the run", c.spec.Name, l, 100*c.opt.Share))
		}
	}
	return out
}
