package tune

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// windowLen is the length of every window of the simulated corpus: a
// budget of k*windowLen tokens makes batches of k rows.
const windowLen = 384

// ladder is the usual candidate budgets: 1 to 32 rows of full windows.
var ladder = []int{384, 768, 1536, 3072, 6144, 12288}

// device is a deterministic cost model: tokens/s per replica by rows per
// batch, which may drift to another table after some batches, and an
// out-of-memory size. Time is simulated: nothing sleeps.
type device struct {
	rates    map[int]float64
	after    map[int]float64
	driftAt  int
	oomAbove int
	scale    map[string]float64 // per replica; 1 if absent
	batches  int
	planned  []int // every positive budget planned
}

func (d *device) rate(replica string, rows int) float64 {
	table := d.rates
	if d.after != nil && d.batches >= d.driftAt {
		table = d.after
	}
	s, ok := d.scale[replica]
	if !ok {
		s = 1
	}
	return table[rows] * s
}

// drive runs rounds: in each, every replica the tuner gives a budget runs
// one batch of that budget, reported as the scheduler would.
func drive(tn *Tuner, replicas []string, d *device, rounds int) {
	for range rounds {
		for _, r := range replicas {
			b := tn.Budget(r)
			if b <= 0 {
				continue
			}
			d.planned = append(d.planned, b)
			rows := max(1, b/windowLen)
			tokens := rows * windowLen
			if d.oomAbove > 0 && tokens > d.oomAbove {
				tn.OutOfMemory(r, tokens)
				continue
			}
			secs := float64(tokens) / d.rate(r, rows)
			tn.Ran(r, b, tokens, tokens, time.Duration(secs*float64(time.Second)))
			d.batches++
		}
	}
}

// quick search settings: the logic, not the statistics, is under test.
func quick(classes ...Class) Options {
	return Options{Classes: classes, MinBatches: 3, MinTime: time.Millisecond}
}

func oneLayout(name string, replicas ...string) []Layout {
	return []Layout{{Sessions: len(replicas), Threads: 1, Replicas: replicas}}
}

func testKey() Key {
	return Key{Device: "test cpu (2 cores)", ISA: "AVX-512 VNNI", Runtime: "1.30.0", Model: "sha256=abc", Precision: "fp32"}
}

func observed(t *testing.T) (*zap.Logger, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	return zap.New(core), logs
}

func only(t *testing.T, tn *Tuner) Choice {
	t.Helper()
	r := tn.Report()
	if len(r) != 1 {
		t.Fatalf("%d choices, want 1", len(r))
	}
	return r[0]
}
