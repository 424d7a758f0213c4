package scheduler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"qa-shard/internal/record"
	"qa-shard/worker/sim"
)

// simClock is simulated time: it moves only when the simulated device
// "computes", so the test depends on the work done, never on how busy the
// machine running it is.
type simClock struct{ ns atomic.Int64 }

func (c *simClock) now() time.Time                  { return time.Unix(0, c.ns.Load()) }
func (c *simClock) advance(d time.Duration)         { c.ns.Add(int64(d)) }
func (c *simClock) since(t time.Time) time.Duration { return c.now().Sub(t) }

// etaSample is the progress seen as one batch starts on the device.
type etaSample struct {
	at      time.Duration // simulated time since the start
	eta     time.Duration // by work (what the run reports)
	docsETA time.Duration // by documents written (the old estimate)
}

// TestETAOneHugeDocument: on the simulated device, with one document
// holding most of the corpus's work, from 20% of the run on the ETA stays
// within 2x of the true remaining time. Time is simulated: the device
// advances a clock by each batch's modelled duration instead of sleeping,
// and the ETA is read from the run's own progress at the start of every
// batch, so the check is driven by progress alone.
func TestETAOneHugeDocument(t *testing.T) {
	var lines []string
	for i, c := range contexts(300, 40, 5) {
		lines = append(lines, jsonLine(i, c))
	}
	huge := strings.Repeat(strings.Join(strings.Fields(contexts(1, 40, 6)[0]), " ")+" ", 2000)
	lines[270] = jsonLine(270, huge) // near the end: documents say "90%" while it runs
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every line is a document, so their Bytes add up to the file's size.
	span := struct{ End, Bytes int64 }{int64(len(lines)), st.Size()}
	if share := float64(len(lines[270])+1) / float64(span.Bytes); share < 0.75 {
		t.Fatalf("the huge document is %.0f%% of the input, want most of it", 100*share)
	}

	clock := &simClock{}
	cfg := testConfig()
	cfg.Total, cfg.TotalBytes, cfg.Now = span.End, span.Bytes, clock.now
	cfg.defaults()
	var pl *pipeline
	var first snapshot
	var samples []etaSample
	dev := sim.New(sim.Options{Name: "sim:0", Rate: 2000, Sleep: func(ctx context.Context, d time.Duration) error {
		now := pl.progress.snap()
		s := etaSample{at: clock.since(first.at), eta: pl.progress.eta(first, now), docsETA: -1}
		if r := pl.progress.rates(first, now); r.docs > 0 {
			s.docsETA = time.Duration(float64(cfg.Total-now.docs) / r.docs * float64(time.Second))
		}
		samples = append(samples, s)
		clock.advance(d)
		return ctx.Err()
	}})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src := record.NewStream(f, record.Options{Questions: []string{"who founded the company"}})
	pl = newPipeline(cfg, src, sim.WordTokenizer{}, []Replica{dev}, &memSink{}, nil)
	first = pl.progress.snap()
	sum, err := pl.run(guard(t))
	if err != nil || sum.Documents != 300 {
		t.Fatalf("run: %d documents, %v", sum.Documents, err)
	}
	if got := pl.progress.bytes.Load(); got != span.Bytes {
		t.Errorf("work counted %d bytes, the input's total is %d", got, span.Bytes)
	}
	total := clock.since(first.at)
	checked, docsOff := 0, 0
	lo, hi := 1e9, 0.0
	for _, s := range samples {
		left := total - s.at
		if s.at < total/5 {
			continue // before 20% of the run
		}
		checked++
		ratio := float64(s.eta) / float64(left)
		lo, hi = min(lo, ratio), max(hi, ratio)
		if s.eta < left/2 || s.eta > 2*left {
			t.Errorf("at %.0f%% of the run (%s simulated): ETA %s, true remaining %s", 100*float64(s.at)/float64(total), s.at, s.eta, left)
		}
		if s.docsETA < left/2 || s.docsETA > 2*left {
			docsOff++
		}
	}
	t.Logf("%d batches over %s simulated; %d checked after 20%%: ETA / true remaining in [%.2f, %.2f]; an ETA by documents would be off by more than 2x at %d of them",
		len(samples), total, checked, lo, hi, docsOff)
	if checked < 20 {
		t.Errorf("only %d batches after 20%% of the run: the corpus is too small to test the ETA", checked)
	}
	if docsOff == 0 {
		t.Errorf("an ETA by documents is never off by 2x here: the corpus does not test what it should")
	}
}
