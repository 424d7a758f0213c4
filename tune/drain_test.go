package tune

import (
	"testing"
	"time"
)

// TestLayoutsNeverOverlap drives the tuner as the scheduler does, one
// batch ahead: each replica is planned its next batch before it reports
// the one running. Whenever a replica gets a batch, no replica of another
// layout may still have one running: layouts are measured alone.
func TestLayoutsNeverOverlap(t *testing.T) {
	for _, alternate := range []bool{true, false} {
		c := twoLayouts()
		c.Alternate = alternate
		switches := overlapFree(t, New(quick(c)))
		// Searched one after the other, then (alternating) two turns each.
		if alternate && switches < 4 || !alternate && (switches < 2 || switches > 3) {
			t.Errorf("alternate %v: %d switches between layouts", alternate, switches)
		}
	}
}

// overlapFree drives tn one batch ahead and fails t if two layouts ever
// run at once; it returns how often the layout in use changed.
func overlapFree(t *testing.T, tn *Tuner) int {
	t.Helper()
	layoutOf := map[string]int{"a": 0, "b0": 1, "b1": 1}
	pending := map[string]int{}
	rates := map[int]float64{1: 40000, 2: 44000, 4: 46000, 8: 48000, 16: 41000, 32: 30000}
	switches, last := 0, -1
	for round := range 400 {
		for _, r := range []string{"a", "b0", "b1"} {
			next := tn.Budget(r)
			if next > 0 {
				for other, b := range pending {
					if b > 0 && layoutOf[other] != layoutOf[r] {
						t.Fatalf("round %d: %s (layout %d) planned while %s (layout %d) still runs a batch", round, r, layoutOf[r], other, layoutOf[other])
					}
				}
				if layoutOf[r] != last {
					switches, last = switches+1, layoutOf[r]
				}
			}
			if b := pending[r]; b > 0 {
				rows := max(1, b/windowLen)
				tn.Ran(r, b, rows*windowLen, rows*windowLen, time.Duration(float64(rows*windowLen)/rates[rows]*float64(time.Second)))
			}
			pending[r] = max(0, next)
		}
	}
	if ch := only(t, tn); ch.Source != "measured" {
		t.Fatalf("never settled: %+v", ch)
	}
	return switches
}

// TestOneSlowWindowIsNotDrift: a single slow window (another process)
// does not re-open the search; two in a row do.
func TestOneSlowWindowIsNotDrift(t *testing.T) {
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("1", "r"), Budgets: ladder, Start: 2}
	o := quick(c)
	tn := New(o)
	dev := &device{rates: peakAt4}
	drive(tn, []string{"r"}, dev, 100)
	if ch := only(t, tn); ch.Source != "measured" || ch.Budget != 1536 {
		t.Fatalf("did not settle at 1536: %+v", ch)
	}
	batch := func(slow float64) {
		b := tn.Budget("r")
		tn.Ran("r", b, b, b, time.Duration(float64(b)/(peakAt4[b/windowLen]*slow)*float64(time.Second)))
	}
	for tn.classes[0].hold.win.n != 0 { // align with the tuner's windows
		batch(1)
	}
	window := func(slow float64) {
		for range 16 {
			batch(slow)
		}
	}
	window(1)
	window(0.5)
	window(1)
	if ch := only(t, tn); ch.Retunes != 0 {
		t.Fatalf("one slow window re-opened the search: %+v", ch)
	}
	window(0.5)
	window(0.5)
	if ch := only(t, tn); ch.Retunes != 1 {
		t.Fatalf("two slow windows in a row: %d retunes, want 1", ch.Retunes)
	}
}
