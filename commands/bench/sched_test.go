package bench

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBenchSchedulingTable runs the scheduling benchmark on a small corpus
// with fast simulated devices and checks the table's shape and the work
// counts, and that its ratios and verdicts follow from the rates it
// printed (checkSchedTable). It asserts no speed: that is what the
// benchmark reports.
func TestBenchSchedulingTable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out strings.Builder
	p := schedBench{docs: 120, seed: 3, rate: 5e7, jitter: 0.1, maxBatchTokens: 2048}
	if err := runSchedBench(ctx, &out, p); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	num, ratio, busy := `\d+`, `\d+\.\d{3}`, `\d+%`
	for _, cells := range [][]string{
		{`1 replica`, `pull`, num, `1`, `1\.000`, busy, ``},
		{`8 equal`, `pull`, num, `8`, ratio, busy, `≥ 0\.95 (met|MISSED)`},
		{`8 equal`, `static even split`, num, `8`, ratio, busy, ``},
		{`7 \+ one 4x slower`, `pull`, num, `7\.25`, ratio, busy, `≥ 0\.90 (met|MISSED)`},
		{`7 \+ one 4x slower`, `static even split`, num, `7\.25`, ratio, busy, ``},
	} {
		row := `(?m)^\| ` + strings.Join(cells, ` \| `) + ` \|$`
		if !regexp.MustCompile(row).MatchString(text) {
			t.Errorf("no row matching %s in\n%s", row, text)
		}
	}
	checkSchedTable(t, text)
	// Per-replica windows: eight rows, the slow one last, and both columns
	// adding up to the corpus's windows.
	m := regexp.MustCompile(`(\d+) windows`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no window total in\n%s", text)
	}
	total, _ := strconv.ParseInt(m[1], 10, 64)
	rows := regexp.MustCompile(`(?m)^\| sim:(\d) \| ([\d.]+) \| (\d+) \| (\d+) \|$`).FindAllStringSubmatch(text, -1)
	if len(rows) != 8 || rows[7][2] != "0.25" {
		t.Fatalf("per-replica rows %q", rows)
	}
	var pull, static int64
	for _, r := range rows {
		a, _ := strconv.ParseInt(r[3], 10, 64)
		b, _ := strconv.ParseInt(r[4], 10, 64)
		pull, static = pull+a, static+b
	}
	if total == 0 || pull != total || static != total {
		t.Fatalf("windows: total %d, pull %d, static %d; every configuration must run every window once", total, pull, static)
	}
}
