package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// writeSchedTable prints the scheduling benchmark: rates and ratios, where
// pull replicas lose time, and windows per replica.
func writeSchedTable(w io.Writer, p schedBench, batches int, rs []schedResult, loadBefore string, cpu time.Duration) error {
	unit := rs[0].rate()
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n## Scheduling on simulated devices\n\n")
	fmt.Fprintf(&sb, "%d documents, %d windows, %d batches of at most %d tokens; one unit = %.0f padded tokens/s, jitter ±%.0f%%.\n",
		p.docs, rs[0].windows, batches, p.maxBatchTokens, p.rate, 100*p.jitter)
	fmt.Fprintf(&sb, "Load average %s before, %s after; process CPU %.1f s over the benchmark.\n", loadBefore, loadAvg(), cpu.Seconds())
	fmt.Fprintf(&sb, "Ratio: windows/s over (sum of the replicas' speeds x the single replica's windows/s). ")
	fmt.Fprintf(&sb, "Device busy: the replicas' mean share of the wall time simulating work.\n\n")
	fmt.Fprintf(&sb, "| replicas | dispatch | windows/s | speeds (units) | ratio | device busy | target |\n")
	fmt.Fprintf(&sb, "| --- | --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rs {
		dispatch := "pull"
		if r.static {
			dispatch = "static even split"
		}
		ratio := r.rate() / (r.units() * unit)
		target := ""
		if r.target > 0 {
			verdict := "met"
			if ratio < r.target {
				verdict = "MISSED"
			}
			target = fmt.Sprintf("≥ %.2f %s", r.target, verdict)
		}
		fmt.Fprintf(&sb, "| %s | %s | %.0f | %g | %.3f | %.0f%% | %s |\n", r.label, dispatch, r.rate(), r.units(), ratio, 100*r.busy, target)
	}
	fmt.Fprintf(&sb, "\nWhere pull replicas lose time (mean per replica): waiting for the first batch, between batches, ")
	fmt.Fprintf(&sb, "after their last batch, and inside Run beyond the simulated delay (late: timer and logits).\n\n")
	fmt.Fprintf(&sb, "| replicas | wall | batches | first | between (per batch) | between (total) | gap p50 | gap p90 | tail | late (per batch) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var worst time.Duration
	for _, r := range rs {
		if r.static {
			continue
		}
		per := time.Duration(0)
		if r.idle.batches > 1 {
			per = time.Duration(float64(r.idle.between) / (r.idle.batches - 1))
		}
		worst = max(worst, r.idle.gap50)
		fmt.Fprintf(&sb, "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", r.label, ms(r.wall), r.idle.batches,
			ms(r.idle.first), ms(per), ms(r.idle.between), ms(r.idle.gap50), ms(r.idle.gap90), ms(r.idle.tail), ms(r.late))
	}
	verdict := "met"
	if worst >= 100*time.Microsecond {
		verdict = "MISSED"
	}
	fmt.Fprintf(&sb, "\nHost work between two batches of one replica (the median gap from a batch's return to the next call; the next batch's tensors are built while the current one runs, and decoding is off the replica's goroutine): at most %s over the configurations (target < 0.1 ms: %s).\n", ms(worst), verdict)
	fmt.Fprintf(&sb, "\nWindows per replica, 7 + one 4x slower:\n\n| replica | speed | pull | static even split |\n| --- | ---: | ---: | ---: |\n")
	pull, static := rs[3], rs[4]
	for i, s := range pull.speeds {
		fmt.Fprintf(&sb, "| sim:%d | %g | %d | %d |\n", i, s, pull.perRep[i], static.perRep[i])
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// ms prints a duration in milliseconds with three decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
