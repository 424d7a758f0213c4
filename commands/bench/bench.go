// Package bench is `qa-shard bench`: it measures qa-shard, the whole
// picture side by side in one run (measure: the raw model's best shape,
// qa-shard end to end with the previous defaults, by hand, tuned from
// scratch and from the cache, an int8 model, and the naive loop), and
// pull-based scheduling against a static split on simulated devices
// (scheduling).
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"go.uber.org/zap"

	"qa-shard/input"
	"qa-shard/job"
	"qa-shard/qa"
)

// options size the benchmark.
type options struct {
	Model, Int8Model, Input, Question string
	Devices, Provider                 string      // replicas, as for a run
	Reps                              int         // interleaved repetitions of every configuration (3)
	RawBatches                        int         // batches per session per raw shape and repetition (3)
	NaiveDocs                         int         // documents for the naive baseline
	CacheDir                          string      // tuning caches of the runs; "": a temporary folder
	Log                               *zap.Logger // progress, one line per run; nil: none
}

// measure measures, in one process and interleaved repetitions, the raw
// model at every candidate shape, qa-shard end to end in several
// configurations and the naive loop, and prints the medians side by side
// with the load average. ONNX Runtime must be initialised (worker.Init).
func measure(ctx context.Context, w io.Writer, o options) error {
	o.Reps, o.RawBatches = max(1, o.Reps), max(1, o.RawBatches)
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	docs, err := readCorpus(o.Input)
	if err != nil {
		return err
	}
	if o.CacheDir == "" {
		if o.CacheDir, err = os.MkdirTemp("", "qa-shard-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.CacheDir)
	}
	corpus := strings.Join(jsonLines(docs), "\n") + "\n"
	ms := &models{o: o, by: map[string]*modelInfo{}}
	mi, err := ms.get(o.Model)
	if err != nil {
		return err
	}
	p := picture{o: o, load0: loadAvg(), docs: len(docs)}
	seq := qa.DefaultSettings().MaxSeqLen
	fr := job.Replicas{Devices: job.DeviceOptions{Devices: o.Devices, Provider: o.Provider, TRTCacheDir: "trt-cache"}, MaxSeqLen: seq, Simulate: Simulated}
	if err := p.measureRaw(ctx, fr, mi, seq); err != nil { // the by-hand shape comes from this first pass
		return err
	}
	best := p.shapes[p.bestRaw()]
	p.configs = p.plan(best, seq)
	p.runs = make([][]e2eResult, len(p.configs))
	for rep := range o.Reps {
		if rep > 0 { // the ceiling too is measured in every repetition, beside the runs
			if err := p.measureRaw(ctx, fr, mi, seq); err != nil {
				return err
			}
		}
		for i, c := range p.configs {
			r, err := ms.runE2E(ctx, c, corpus)
			if err != nil {
				return err
			}
			// Every configuration must do the same work, or the rates
			// compare nothing (the int8 model's tokenizer is the same).
			if w0 := p.runs[0]; len(w0) > 0 && r.sum.Windows != w0[0].sum.Windows {
				return fmt.Errorf("%s ran %d windows, %s %d", c.label, r.sum.Windows, p.configs[0].label, w0[0].sum.Windows)
			}
			p.runs[i] = append(p.runs[i], r)
			o.Log.Info("bench run", zap.Int("repetition", rep+1), zap.String("run", c.label),
				zap.Float64("docs_per_s", r.docsPerSec()), zap.String("load", r.load))
		}
		n, err := ms.naiveRun(ctx, o, docs)
		if err != nil {
			return fmt.Errorf("naive baseline: %w", err)
		}
		p.naive = append(p.naive, n)
	}
	p.tokRate, p.tokN = tokenizerRate(mi.tok, docs)
	return p.write(w)
}

// measureRaw adds one repetition of the raw model at every candidate shape.
func (p *picture) measureRaw(ctx context.Context, fr job.Replicas, mi *modelInfo, seq int) error {
	fl, err := job.StartFleet(ctx, fr, mi.m)
	if err != nil {
		return err
	}
	defer fl.Close()
	if p.shapes == nil {
		p.shapes = rawShapes(fl, seq)
		p.raw = make([][]float64, len(p.shapes))
	}
	for i, s := range p.shapes {
		r, err := rawRate(ctx, fl, s, seq, p.o.RawBatches)
		if err != nil {
			return fmt.Errorf("raw model, %s: %w", s, err)
		}
		p.raw[i] = append(p.raw[i], r)
	}
	return nil
}

// plan lists the end-to-end configurations: the previous defaults, the
// best raw shape pinned by hand, the defaults from scratch and from the
// cache the first run wrote, and the int8 model when there is one.
func (p *picture) plan(best rawShape, seq int) []config {
	cold := filepath.Join(p.o.CacheDir, "tuning.json")
	prev := config{label: fmt.Sprintf("previous defaults (1 session x %d threads, 8192 tokens)", runtime.NumCPU()),
		model: p.o.Model, sessions: 1, threads: runtime.NumCPU(), budget: 8192}
	if p.o.Devices != "" && p.o.Devices != "cpu" && !strings.HasPrefix(p.o.Devices, "cpu:") {
		prev = config{label: "previous defaults (2 sessions per GPU, 8192 tokens)", model: p.o.Model, sessions: 2, budget: 8192}
	}
	cs := []config{
		prev,
		{label: fmt.Sprintf("by hand: the best raw shape (%s = %d tokens)", best, best.budget(seq)), model: p.o.Model,
			sessions: best.layout.Sessions, threads: best.layout.Threads, budget: best.budget(seq)},
		{label: "defaults, first run (searches)", model: p.o.Model, cache: cold, fresh: true},
		{label: "defaults, next run (from the cache)", model: p.o.Model, cache: cold},
	}
	if p.o.Int8Model != "" {
		if _, err := os.Stat(filepath.Join(p.o.Int8Model, "model.onnx")); err == nil {
			cs = append(cs, config{label: "int8 model, defaults (cached after the first repetition)", model: p.o.Int8Model,
				cache: filepath.Join(p.o.CacheDir, "int8.json")})
		} else {
			p.int8Missing = p.o.Int8Model
		}
	}
	return cs
}

type benchDoc struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Context string          `json:"context"`
}

func readCorpus(path string) ([]benchDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open --input: %w", input.ErrInput, err)
	}
	defer f.Close()
	var docs []benchDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var d benchDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%w: %s line %d: %w", input.ErrInput, path, n, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", input.ErrInput, path, err)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%w: --input %s holds no documents: a benchmark needs a corpus to time (make bench generates one)", input.ErrInput, path)
	}
	return docs, nil
}

func jsonLines(docs []benchDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		b, _ := json.Marshal(d)
		out[i] = string(b)
	}
	return out
}
