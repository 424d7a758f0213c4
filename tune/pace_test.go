package tune

import (
	"path/filepath"
	"testing"
	"time"
)

// paced runs rounds like drive, telling the tuner before each batch the
// share of a run of total tokens done, as the scheduler does, until that
// run is done; it returns the wall time of all batches (device time over
// the replicas at once).
func paced(tn *Tuner, replicas []string, d *device, rounds int, done *int64, total int64) time.Duration {
	var wall time.Duration
	for range rounds {
		for _, r := range replicas {
			b := tn.Budget(r)
			if b <= 0 || *done >= total {
				continue
			}
			rows := max(1, b/windowLen)
			tokens := rows * windowLen
			dt := time.Duration(float64(tokens) / d.rate(r, rows) * float64(time.Second))
			*done += int64(tokens)
			tn.Done(float64(*done) / float64(total))
			tn.Ran(r, b, tokens, tokens, dt)
			d.batches++
			wall += dt / time.Duration(len(replicas))
		}
	}
	return wall
}

func TestSearchStopsAtItsShareOfTheRun(t *testing.T) {
	// 300 rounds of 2 replicas at about 2 rows: the whole search would take
	// a large part of this run.
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	o := quick(c)
	o.MinBatches, o.MinTime = 8, 50*time.Millisecond
	o.Cache = OpenCache(filepath.Join(t.TempDir(), "tuning.json"), nil)
	tn := New(o)
	var done int64
	total := int64(300 * 2 * 2 * windowLen)
	wall := paced(tn, []string{"r0", "r1"}, &device{rates: peakAt4}, 1000, &done, total)
	ch := only(t, tn)
	if ch.Batches == 0 || ch.Searched > time.Duration(0.02*float64(wall))+wall/100 {
		t.Fatalf("searched %v in %d batches of a %v run, want at most 2%% (plus a batch)", ch.Searched, ch.Batches, wall)
	}
	if ch.Source != "partly measured: the search stopped at its share of the run" {
		t.Fatalf("source %q, want partly measured", ch.Source)
	}
	if err := tn.Save(); err != nil {
		t.Fatal(err)
	}
	if _, ok := o.Cache.Lookup(testKey()); ok {
		t.Error("a search cut short was cached as a choice")
	}
	if s, ok := OpenCache(filepath.Join(filepath.Dir(o.Cache.path), "tuning.json"), nil).LookupSearch(testKey()); !ok || s.Batches != ch.Batches || s.Runs != 1 {
		t.Errorf("cached search %+v (found %v), want this run's %d batches, 1 run", s, ok, ch.Batches)
	}
}

func TestLongRunFinishesTheSearch(t *testing.T) {
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	tn := New(quick(c))
	var done int64
	paced(tn, []string{"r0", "r1"}, &device{rates: peakAt4}, 200, &done, 1<<40)
	if ch := only(t, tn); ch.Budget != 1536 || ch.Source != "measured" {
		t.Fatalf("chose %+v, want 1536 tokens, measured", ch)
	}
}

func TestNoResearchOnceTheShareIsSpent(t *testing.T) {
	// The search settles while the run looks huge; then the run turns out
	// to end soon (its share of the run is spent): a drift is not searched
	// again, the shape is held.
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	o := quick(c)
	o.Share = 0.01
	tn := New(o)
	dev := &device{rates: peakAt4, after: peakAt1, driftAt: 150}
	var done int64
	paced(tn, []string{"r0", "r1"}, dev, 60, &done, 1<<40)
	if ch := only(t, tn); ch.Budget != 1536 || ch.Source != "measured" {
		t.Fatalf("before the drift: %+v, want 1536 tokens, measured", ch)
	}
	paced(tn, []string{"r0", "r1"}, dev, 300, &done, done+300*2*1536)
	if ch := only(t, tn); ch.Retunes != 0 || ch.Budget != 1536 {
		t.Fatalf("after the drift: %+v, want 1536 tokens held and no retune", ch)
	}
}

func TestResearchesStayWithinTheShare(t *testing.T) {
	// A drift a third into the run re-opens the search, which (without the
	// bound) would take 2.5% of this run; it stops at 1% instead.
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	o := quick(c)
	o.Share = 0.01
	tn := New(o)
	dev := &device{rates: peakAt4, after: peakAt1, driftAt: 150}
	var done int64
	wall := paced(tn, []string{"r0", "r1"}, dev, 10000, &done, 600*2*1536)
	if ch := only(t, tn); ch.Retunes != 1 || ch.Searched > time.Duration(0.01*float64(wall))+wall/200 {
		t.Fatalf("searched %v (%d retunes) of a %v run, want one retune and at most 1%% (plus a batch)", ch.Searched, ch.Retunes, wall)
	}
}

func TestIntentAndUsing(t *testing.T) {
	a := Layout{Sessions: 1, Threads: 2, Replicas: []string{"a"}}
	b := Layout{Sessions: 2, Threads: 1, Replicas: []string{"b0", "b1"}}
	tn := New(quick(Class{Name: "cpu", Key: testKey(), Layouts: []Layout{a, b}, Budgets: ladder, Start: 1, Alternate: true}))
	want := "cpu: measuring the batch size with 1 session x 2 threads, for at most 2% of the run; 1 other layout is measured after it while that share lasts, the rest by the next run (tuning cache)"
	if got := tn.Intent(); len(got) != 1 || got[0] != want {
		t.Fatalf("intent %q, want %q", got, want)
	}
	if !tn.Using("a") || tn.Using("b0") || !tn.Using("elsewhere") {
		t.Fatal("Using: want the first layout in use, the second not, a replica of no class in use")
	}
	pinned := New(quick(Class{Name: "cpu", Key: testKey(), Layouts: []Layout{b}, Budgets: []int{768}}))
	if got := pinned.Intent(); len(got) != 1 || got[0] != "cpu: 2 sessions x 1 thread, 768 tokens per batch (pinned)" {
		t.Fatalf("pinned intent %q", got)
	}
}

func TestWarmUpIsNoSearchCost(t *testing.T) {
	// A starting session's first batch warms it up whatever the shape:
	// not counted as searching, nor as the run's pace.
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	tn := New(quick(c))
	run := func(r string, d time.Duration) {
		b := tn.Budget(r)
		tn.Done(0.01)
		tn.Ran(r, b, b, b, d)
	}
	run("r0", time.Second)
	run("r1", time.Second)
	if ch := only(t, tn); ch.Batches != 0 || ch.Searched != 0 {
		t.Fatalf("after the warm-up batches: %d batches, %v searched; want none", ch.Batches, ch.Searched)
	}
	run("r0", 10*time.Millisecond)
	run("r1", 10*time.Millisecond)
	if ch := only(t, tn); ch.Batches != 2 || ch.Searched != 10*time.Millisecond {
		t.Fatalf("%d batches, %v searched; want the second batches only: 2, 10ms (two sessions at once)", ch.Batches, ch.Searched)
	}
}
