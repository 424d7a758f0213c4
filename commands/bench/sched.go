package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"qa-shard/internal/record"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/worker/sim"
)

// schedBench sizes the scheduling benchmark. The defaults keep the whole
// benchmark under a minute on two cores while the simulated device time
// (tens of ms per batch) dwarfs the pipeline's own CPU time per batch.
type schedBench struct {
	docs           int
	seed           uint64
	rate           float64 // simulated padded tokens/s of one unit
	jitter         float64
	maxBatchTokens int
}

func defaultSchedBench() schedBench {
	return schedBench{docs: 4000, seed: 2, rate: 200000, jitter: 0.05, maxBatchTokens: 4096}
}

// schedConfig is one line of the table: replica speeds and how batches
// reach them.
type schedConfig struct {
	label  string
	speeds []float64
	static bool
	target float64 // least acceptable ratio, 0: none
}

// schedResult is one measured configuration.
type schedResult struct {
	schedConfig
	windows int64
	wall    time.Duration
	perRep  []int64       // windows per replica
	busy    float64       // replicas' mean share of the wall time simulating work
	late    time.Duration // mean time per batch a replica spent in Run beyond its simulated delay
	idle    schedIdle
}

// schedIdle splits a pull run's idle replica time (means over replicas):
// waiting for the first batch, between batches (the serve loop's own work
// and the hand-offs), and after the last one (the tail).
type schedIdle struct {
	first, between, tail time.Duration
	batches              float64       // mean batches per replica
	gap50, gap90         time.Duration // host gaps between two batches of one replica, over all replicas
}

func (r schedResult) rate() float64 { return float64(r.windows) / r.wall.Seconds() }

func (c schedConfig) units() float64 {
	u := 0.0
	for _, s := range c.speeds {
		u += s
	}
	return u
}

// scheduling measures, in one run and on simulated devices, how close
// pull-based scheduling gets to the sum of the replicas' speeds, beside a
// static even split of the same batches, and prints a markdown table.
func scheduling(ctx context.Context, w io.Writer) error {
	return runSchedBench(ctx, w, defaultSchedBench())
}

func runSchedBench(ctx context.Context, w io.Writer, p schedBench) error {
	load, cpu := loadAvg(), cpuTime()
	corpus := schedCorpus(p.docs, p.seed)
	even := []float64{1, 1, 1, 1, 1, 1, 1, 1}
	uneven := []float64{1, 1, 1, 1, 1, 1, 1, 0.25}

	// The single replica is the unit, and its batches are what the static
	// splits replay: the same windows, cut the same way.
	unit, batches, err := schedPull(ctx, p, corpus, schedConfig{label: "1 replica", speeds: []float64{1}}, true)
	if err != nil {
		return err
	}
	results := []schedResult{unit}
	for _, c := range []schedConfig{
		{label: "8 equal", speeds: even, target: 0.95},
		{label: "8 equal", speeds: even, static: true},
		{label: "7 + one 4x slower", speeds: uneven, target: 0.90},
		{label: "7 + one 4x slower", speeds: uneven, static: true},
	} {
		var r schedResult
		if c.static {
			r, err = schedStatic(ctx, p, batches, c)
		} else {
			r, _, err = schedPull(ctx, p, corpus, c, false)
		}
		if err != nil {
			return err
		}
		// Every configuration must do the same work, or the rates compare
		// nothing.
		if r.windows != unit.windows {
			return fmt.Errorf("scheduling bench: %s ran %d windows, the single replica %d", c.label, r.windows, unit.windows)
		}
		results = append(results, r)
	}
	return writeSchedTable(w, p, len(batches), results, load, cpuTime()-cpu)
}

// schedPull runs the scheduler over the corpus on simulated replicas; when
// keepBatches is set it also returns the batches it ran, in order.
func schedPull(ctx context.Context, p schedBench, corpus string, c schedConfig, keepBatches bool) (schedResult, []qa.Batch, error) {
	sims := schedReplicas(p, c.speeds)
	reps := make([]scheduler.Replica, len(sims))
	probes := make([]*schedProbe, len(sims))
	rec := &schedRecorder{}
	for i, s := range sims {
		probes[i] = &schedProbe{Replica: s}
		if keepBatches {
			probes[i].rec = rec
		}
		reps[i] = probes[i]
	}
	cfg := scheduler.Config{
		Settings: qa.DefaultSettings(),
		Template: qa.BertTemplate(101, 102),
		PadID:    0,
		Batching: scheduler.Batching{MaxBatchTokens: p.maxBatchTokens},
	}
	src := record.NewStream(strings.NewReader(corpus), record.Options{Questions: []string{"who founded the company"}})
	start := time.Now()
	sum, err := scheduler.Run(ctx, cfg, src, sim.WordTokenizer{}, reps, record.NewWriter(io.Discard), nil)
	end := time.Now()
	if err != nil {
		return schedResult{}, nil, fmt.Errorf("scheduling bench: %s, pull: %w", c.label, err)
	}
	if sum.RecordErrors != 0 {
		return schedResult{}, nil, fmt.Errorf("scheduling bench: %s, pull: %d error records", c.label, sum.RecordErrors)
	}
	r := schedResult{schedConfig: c, windows: sum.Windows, wall: sum.Wall, perRep: schedCounts(sims), idle: schedIdleOf(probes, start, end)}
	r.busy, r.late = schedBusy(sims, sum.Wall)
	return r, rec.batches, nil
}

// schedStatic is the static even split (DataParallel-like): batch i goes
// to replica i mod n, decided up front; each replica runs its share in
// order and the run ends when the slowest is done. It runs only the
// replicas, without the pipeline around them, which if anything flatters
// it.
func schedStatic(ctx context.Context, p schedBench, batches []qa.Batch, c schedConfig) (schedResult, error) {
	sims := schedReplicas(p, c.speeds)
	errs := make([]error, len(sims))
	var wg sync.WaitGroup
	start := time.Now()
	for i, s := range sims {
		wg.Go(func() {
			for k := i; k < len(batches); k += len(sims) {
				if _, err := s.Run(ctx, batches[k]); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return schedResult{}, fmt.Errorf("scheduling bench: %s, static: %w", c.label, err)
		}
	}
	r := schedResult{schedConfig: c, wall: wall, perRep: schedCounts(sims)}
	r.busy, r.late = schedBusy(sims, wall)
	for _, n := range r.perRep {
		r.windows += n
	}
	return r, nil
}

// schedReplicas builds fresh replicas with one seed, so a batch's jitter
// is the same on every replica and in every configuration.
func schedReplicas(p schedBench, speeds []float64) []*sim.Replica {
	out := make([]*sim.Replica, len(speeds))
	for i, s := range speeds {
		out[i] = sim.New(sim.Options{Name: fmt.Sprintf("sim:%d", i), Index: i, Rate: p.rate, Speed: s, Jitter: p.jitter, Seed: p.seed})
	}
	return out
}

func schedCounts(sims []*sim.Replica) []int64 {
	out := make([]int64, len(sims))
	for i, s := range sims {
		out[i] = s.Stats().Windows
	}
	return out
}

// schedBusy is the replicas' mean share of the wall time simulating work
// (what a real device would be busy for), and the mean time per batch
// spent in Run beyond that: timer lateness and the logits, which grow when
// the two cores are contended.
func schedBusy(sims []*sim.Replica, wall time.Duration) (float64, time.Duration) {
	var simulated, busy time.Duration
	var batches int64
	for _, s := range sims {
		st := s.Stats()
		simulated += st.Simulated
		busy += st.Busy
		batches += st.Batches
	}
	late := time.Duration(0)
	if batches > 0 {
		late = (busy - simulated) / time.Duration(batches)
	}
	return simulated.Seconds() / (wall.Seconds() * float64(len(sims))), late
}

// schedCorpus is JSONL of n documents of mixed lengths: mostly short ones
// (one window), some of a few windows, a few long ones, shuffled, as a
// real corpus mixes them.
func schedCorpus(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := strings.Fields("the company was founded in paris by ada lovelace and later moved to berlin where its headquarters stand today near the river with many engineers")
	var sb strings.Builder
	for i := range n {
		var length int
		switch x := rng.Float64(); {
		case x < 0.6:
			length = 20 + rng.IntN(230)
		case x < 0.9:
			length = 250 + rng.IntN(550)
		default:
			length = 800 + rng.IntN(1700)
		}
		ws := make([]string, length)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		line, _ := json.Marshal(map[string]any{"id": i, "context": strings.Join(ws, " ")})
		sb.Write(line)
		sb.WriteByte('\n')
	}
	return sb.String()
}
