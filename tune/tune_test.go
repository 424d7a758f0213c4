package tune

import (
	"slices"
	"testing"
)

// peakAt4 is fastest at 4 rows (1536 tokens): larger batches leave the
// cache, smaller ones pay their overhead.
var peakAt4 = map[int]float64{1: 40000, 2: 45000, 4: 50000, 8: 42000, 16: 35000, 32: 30000}

// peakAt1 is fastest at one row.
var peakAt1 = map[int]float64{1: 30000, 2: 26000, 4: 20000, 8: 15000, 16: 12000, 32: 10000}

func TestFindsKnownOptimum(t *testing.T) {
	for _, start := range []int{0, 1, 3, 5} {
		c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: start}
		tn := New(quick(c))
		dev := &device{rates: peakAt4}
		drive(tn, []string{"r0", "r1"}, dev, 200)
		ch := only(t, tn)
		if ch.Budget != 1536 || ch.Source != "measured" {
			t.Errorf("start %d: chose %+v, want 1536 tokens, measured", ladder[start], ch)
		}
		if got := tn.Budget("r0"); got != 1536 {
			t.Errorf("start %d: plans %d after settling, want 1536", ladder[start], got)
		}
		if ch.Rate < 2*49000 || ch.Rate > 2*51000 {
			t.Errorf("start %d: rate %.0f, want about 2 x 50000", ladder[start], ch.Rate)
		}
		if ch.Batches == 0 || ch.Batches > 80 || ch.Overhead <= 0 || ch.Overhead >= ch.Searched {
			t.Errorf("start %d: search cost %+v: want some batches (at most 80), an overhead under the time searched", ladder[start], ch)
		}
	}
}

func TestRespectsOutOfMemory(t *testing.T) {
	// Larger is always faster, but more than 3000 tokens do not fit.
	faster := map[int]float64{1: 10000, 2: 20000, 4: 30000, 8: 40000, 16: 50000, 32: 60000}
	c := Class{Name: "gpu", Key: testKey(), Layouts: oneLayout("2", "g0", "g1"), Budgets: ladder, Start: 1}
	tn := New(quick(c))
	dev := &device{rates: faster, oomAbove: 3000}
	drive(tn, []string{"g0", "g1"}, dev, 200)
	ch := only(t, tn)
	if ch.Budget != 1536 || ch.Bound != 3072 {
		t.Fatalf("chose %+v, want 1536 tokens below the out-of-memory bound 3072", ch)
	}
	// After the first out-of-memory error, nothing at or above it is planned.
	first := slices.Index(dev.planned, 3072)
	for i, b := range dev.planned[first+2:] {
		if b >= 3072 {
			t.Fatalf("planned %d tokens (batch %d) after running out of memory at 3072", b, first+2+i)
		}
	}
}

func TestOutOfMemoryWhileHolding(t *testing.T) {
	c := Class{Name: "gpu", Key: testKey(), Layouts: oneLayout("1", "g0"), Budgets: ladder, Start: 3}
	tn := New(quick(c))
	drive(tn, []string{"g0"}, &device{rates: map[int]float64{1: 1, 2: 2, 4: 3, 8: 4, 16: 5, 32: 6}}, 200)
	if ch := only(t, tn); ch.Budget != 12288 {
		t.Fatalf("chose %d, want the largest budget", ch.Budget)
	}
	tn.OutOfMemory("g0", 12288) // another process took memory
	if got := tn.Budget("g0"); got != 6144 {
		t.Fatalf("plans %d after an out-of-memory error at 12288, want 6144", got)
	}
}

func TestRetunesAfterDrift(t *testing.T) {
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	tn := New(quick(c))
	dev := &device{rates: peakAt4, after: peakAt1, driftAt: 150}
	drive(tn, []string{"r0", "r1"}, dev, 60) // settles before the drift
	if ch := only(t, tn); ch.Budget != 1536 || ch.Retunes != 0 {
		t.Fatalf("before the drift: %+v, want 1536 tokens, no retune", ch)
	}
	drive(tn, []string{"r0", "r1"}, dev, 300)
	ch := only(t, tn)
	if ch.Budget != 384 || ch.Retunes < 1 || ch.Source != "measured" {
		t.Fatalf("after the drift: %+v, want 384 tokens after at least one retune", ch)
	}
}

func TestLayoutProbe(t *testing.T) {
	// One session of two threads is fastest per replica at 8 rows; two
	// sessions of one thread each run at 0.6 of that per replica but are
	// fastest at 2 rows, and together beat the single session.
	a := Layout{Sessions: 1, Threads: 2, Replicas: []string{"a"}}
	b := Layout{Sessions: 2, Threads: 1, Replicas: []string{"b0", "b1"}}
	perRows := map[int]float64{1: 40000, 2: 44000, 4: 46000, 8: 48000, 16: 41000, 32: 30000}
	small := map[int]float64{1: 42000, 2: 50000, 4: 45000, 8: 40000, 16: 30000, 32: 20000}
	c := Class{Name: "cpu", Key: testKey(), Layouts: []Layout{a, b}, Budgets: ladder, Start: 1, Alternate: true}
	tn := New(quick(c))
	if got := tn.Initial(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("starts with %v, want the first layout [a]", got)
	}
	devA := &device{rates: perRows}
	devB := &device{rates: small, scale: map[string]float64{"b0": 0.6, "b1": 0.6}}
	waited := false
	for range 300 {
		drive(tn, []string{"a"}, devA, 1)
		waited = waited || tn.Budget("b0") == 0
		drive(tn, []string{"b0", "b1"}, devB, 1)
	}
	ch := only(t, tn)
	if ch.Layout != "2 sessions x 1 thread" || ch.Budget != 768 {
		t.Fatalf("chose %+v, want 2 sessions x 1 thread at 768 tokens", ch)
	}
	if !waited {
		t.Error("the second layout never waited while the first was measured")
	}
	if got := tn.Budget("a"); got >= 0 {
		t.Errorf("the losing layout's replica is planned %d, want < 0 (set aside)", got)
	}
	if ch.Rate < 2*0.6*49000 || ch.Rate > 2*0.6*51000 {
		t.Errorf("rate %.0f, want about 2 x 0.6 x 50000", ch.Rate)
	}
}

func TestRetiredLayoutGivesWay(t *testing.T) {
	a := Layout{Sessions: 2, Threads: 1, Replicas: []string{"a0", "a1"}}
	b := Layout{Sessions: 1, Threads: 2, Replicas: []string{"b"}}
	tn := New(quick(Class{Name: "cpu", Key: testKey(), Layouts: []Layout{a, b}, Budgets: ladder, Start: 1}))
	if tn.Budget("b") != 0 {
		t.Fatal("the second layout does not wait at first")
	}
	tn.Retired("a0")
	tn.Retired("a1")
	if got := tn.Budget("b"); got <= 0 {
		t.Fatalf("after the first layout failed, the second is planned %d, want a budget", got)
	}
}

func TestPinned(t *testing.T) {
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: []int{768}}
	tn := New(quick(c))
	dev := &device{rates: peakAt4}
	drive(tn, []string{"r0", "r1"}, dev, 50)
	for _, b := range dev.planned {
		if b != 768 {
			t.Fatalf("planned %d with the budget pinned at 768", b)
		}
	}
	if ch := only(t, tn); ch.Source != "pinned" || ch.Batches != 0 || ch.Overhead != 0 {
		t.Fatalf("choice %+v, want pinned with no search", ch)
	}
}

func TestUnknownReplicaGetsFallback(t *testing.T) {
	tn := New(Options{Fallback: 4096})
	if got := tn.Budget("elsewhere"); got != 4096 {
		t.Fatalf("plans %d for a replica of no class, want the fallback 4096", got)
	}
}

func TestShortRunIsUnfinished(t *testing.T) {
	c := Class{Name: "cpu", Key: testKey(), Layouts: oneLayout("2x1", "r0", "r1"), Budgets: ladder, Start: 1}
	tn := New(quick(c))
	drive(tn, []string{"r0", "r1"}, &device{rates: peakAt4}, 2)
	if ch := only(t, tn); ch.Source != "unfinished" {
		t.Fatalf("after two rounds: %+v, want unfinished", ch)
	}
}
