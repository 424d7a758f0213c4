package bench

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// The benchmark tests cannot assert speed (that is what the benchmark
// reports), but they can assert that what the tables print follows from
// what was measured: each verdict from its figure and target, each ratio
// from the rates beside it, each rate from the work the test fed in.

// figure parses a printed number; the pattern already matched it.
func figure(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("figure %q: %v", s, err)
	}
	return f
}

// checkVerdict: the verdict printed beside x is "met" exactly when ok says
// so of x. A figure within half a printed unit (unit) of the target may
// have been rounded across it, and is not judged.
func checkVerdict(t *testing.T, what string, x, target, unit float64, ok func(float64) bool, got string) {
	t.Helper()
	if math.Abs(x-target) <= unit/2 {
		return
	}
	want := "MISSED"
	if ok(x) {
		want = "met"
	}
	if got != want {
		t.Errorf("%s: %v against the target %v printed %q, want %q", what, x, target, got, want)
	}
}

func atLeast(target float64) func(float64) bool { return func(x float64) bool { return x >= target } }
func atMost(target float64) func(float64) bool  { return func(x float64) bool { return x <= target } }
func below(target float64) func(float64) bool   { return func(x float64) bool { return x < target } }

// checkPicture checks the whole picture of one repetition on docs
// documents.
func checkPicture(t *testing.T, text string, docs int) {
	t.Helper()
	if !regexp.MustCompile(`; ` + strconv.Itoa(docs) + ` documents, \d+ windows, \d+ tokens;`).MatchString(text) {
		t.Errorf("the picture does not say %d documents", docs)
	}
	// Every run's documents/s is the corpus over its wall time.
	runs := regexp.MustCompile(`(?m)^\| 1 \| ([^|]+) \| ([\d.]+) s \| [\d.]+ s \| ([\d.]+) \| .* \|$`).FindAllStringSubmatch(text, -1)
	if len(runs) < 4 {
		t.Fatalf("%d rows in the table of every run, want 4 or more", len(runs))
	}
	for _, r := range runs {
		wall, rate := figure(t, r[2]), figure(t, r[3])
		if slack := 0.005*(wall+rate) + 1e-9; math.Abs(wall*rate-float64(docs)) > slack {
			t.Errorf("run %q: %.2f documents/s over %.2f s is %.2f documents, want %d", r[1], rate, wall, wall*rate, docs)
		}
	}
	// The target line repeats the table's ratios for the next run, and
	// judges them.
	m := regexp.MustCompile(`wall clock ([\d.]+) \(next run, from the cache\) (met|MISSED), [\d.]+ \(first run, searching\); per CPU-second ([\d.]+) (met|MISSED)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no target line for the defaults")
	}
	next := regexp.MustCompile(`(?m)^\| qa-shard defaults, next run \(from the cache\) \| [\d.]+ \| [\d.]+ \| ([\d.]+) \| [\d.]+ \| ([\d.]+) \|`).FindStringSubmatch(text)
	if next == nil {
		t.Fatal("no row for the next run")
	}
	if next[1] != m[1] || next[2] != m[3] {
		t.Errorf("the next run's ratios: table %s and %s, target line %s and %s", next[1], next[2], m[1], m[3])
	}
	checkVerdict(t, "defaults, wall clock", figure(t, m[1]), 0.95, 0.001, atLeast(0.95), m[2])
	checkVerdict(t, "defaults, per CPU-second", figure(t, m[3]), 0.95, 0.001, atLeast(0.95), m[4])
	// Tuning overhead: with one repetition the difference is first minus
	// next, and the verdict follows the share.
	o := regexp.MustCompile(`Tuning overhead: first run ([\d.]+) s - next run ([\d.]+) s = (-?[\d.]+) s .* so (-?[\d.]+)% of it \(target ≤ 3%: (met|MISSED)\)`).FindStringSubmatch(text)
	if o == nil {
		t.Fatal("no tuning overhead line")
	}
	first, nextWall, over := figure(t, o[1]), figure(t, o[2]), figure(t, o[3])
	if math.Abs(first-nextWall-over) > 0.15+1e-9 {
		t.Errorf("tuning overhead: %.1f s - %.1f s printed as %.1f s", first, nextWall, over)
	}
	checkVerdict(t, "tuning overhead", figure(t, o[4]), 3, 0.1, atMost(3), o[5])
}

// checkSchedTable checks the scheduling table: each ratio is the row's
// rate over the single replica's times its speeds, each verdict follows
// its ratio, and the host gap's verdict follows the gap.
func checkSchedTable(t *testing.T, text string) {
	t.Helper()
	rows := regexp.MustCompile(`(?m)^\| ([^|]+) \| (pull|static even split) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| \d+% \| (?:≥ ([\d.]+) (met|MISSED))? ?\|$`).FindAllStringSubmatch(text, -1)
	if len(rows) != 5 {
		t.Fatalf("%d rows in the scheduling table, want 5", len(rows))
	}
	unit := figure(t, rows[0][3])
	for _, r := range rows {
		rate, speeds, ratio := figure(t, r[3]), figure(t, r[4]), figure(t, r[5])
		// Rates are printed whole: allow half a window/s on each, and
		// half a unit of the third decimal.
		want := rate / (speeds * unit)
		slack := want*(0.5/rate+0.5/unit) + 0.0005 + 1e-9
		if math.Abs(ratio-want) > slack {
			t.Errorf("%s, %s: ratio %.3f, but %.0f windows/s over %g x %.0f is %.4f", r[1], r[2], ratio, rate, speeds, unit, want)
		}
		if r[6] != "" {
			target := figure(t, r[6])
			checkVerdict(t, r[1]+", "+r[2], ratio, target, 0.001, atLeast(target), r[7])
		}
	}
	g := regexp.MustCompile(`at most ([\d.]+) ms over the configurations \(target < 0\.1 ms: (met|MISSED)\)`).FindStringSubmatch(text)
	if g == nil {
		t.Fatal("no line on the host work between batches")
	}
	checkVerdict(t, "host gap", figure(t, g[1]), 0.1, 0.001, below(0.1), g[2])
}
