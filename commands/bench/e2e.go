package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"qa-shard/internal/record"
	"qa-shard/job"
	"qa-shard/qa"
	"qa-shard/qamodel"
	"qa-shard/scheduler"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/tune"
	"qa-shard/worker"
)

// config is one end-to-end configuration of qa-shard: what a run with
// these flags does, in process.
type config struct {
	label    string
	model    string // model directory
	sessions int    // --replicas-per-device; 0: measured
	threads  int    // --threads; 0: measured
	budget   int    // --max-batch-tokens; 0: measured
	cache    string // tuning cache file; "": none
	fresh    bool   // delete the cache before the run (a first run)
}

// e2eResult is one run of a configuration.
type e2eResult struct {
	wall    time.Duration // from opening the first sessions to the last record
	cpu     time.Duration // the process's CPU time over the same span
	sum     scheduler.Summary
	choices []tune.Choice
	load    string
}

func (r e2eResult) docsPerSec() float64   { return float64(r.sum.Documents) / r.wall.Seconds() }
func (r e2eResult) tokensPerSec() float64 { return float64(r.sum.Tokens) / r.wall.Seconds() }

// tokensPerCPUSec is work per second of this process's CPU time: far less
// sensitive to other processes than wall-clock rates (but blind to a core
// left idle, which only wall time shows).
func (r e2eResult) tokensPerCPUSec() float64 { return float64(r.sum.Tokens) / r.cpu.Seconds() }

// models caches what each model directory needs once: its tokenizer and
// fingerprint (the tuning cache key), so runs time only the run.
type models struct {
	o  options
	by map[string]*modelInfo
}

type modelInfo struct {
	m   *worker.Model
	tok *tokenizer.Tokenizer
	fp  string
}

func (ms *models) get(dir string) (*modelInfo, error) {
	if mi, ok := ms.by[dir]; ok {
		return mi, nil
	}
	m, err := qamodel.Open(dir, qamodel.Options{Mecab: modeldir.EnvOptions()}, 0, nil)
	if err != nil {
		return nil, err
	}
	fp, err := m.Graph.Fingerprint()
	if err != nil {
		return nil, err
	}
	mi := &modelInfo{m: m.Graph, tok: m.Tok, fp: fp}
	ms.by[dir] = mi
	return mi, nil
}

// runE2E answers the corpus with configuration c as `qa-shard run` would:
// the fleet of candidate layouts, the tuner with c's pins and cache, the
// scheduler, every record written (to nowhere).
func (ms *models) runE2E(ctx context.Context, c config, corpus string) (e2eResult, error) {
	mi, err := ms.get(c.model)
	if err != nil {
		return e2eResult{}, err
	}
	if c.fresh {
		os.Remove(c.cache)
	}
	fl, err := job.StartFleet(ctx, job.Replicas{Simulate: Simulated, MaxSeqLen: qa.DefaultSettings().MaxSeqLen,
		Devices: job.DeviceOptions{Devices: ms.o.Devices, Provider: ms.o.Provider, ReplicasPerDevice: c.sessions, Threads: c.threads,
			Precision: "fp32", TRTCacheDir: "trt-cache", GPUSampleInterval: time.Second},
		Pipeline: job.PipelineOptions{MaxBatchTokens: c.budget}}, mi.m)
	if err != nil {
		return e2eResult{}, err
	}
	defer fl.Close()
	var cache *tune.Cache
	if c.cache != "" {
		cache = tune.OpenCache(c.cache, nil)
	}
	tn := fl.Tuner(mi.fp, cache, nil)
	start, cpu0 := time.Now(), cpuTime()
	if err := fl.Open(tn.Initial()); err != nil {
		return e2eResult{}, err
	}
	cfg := job.SchedulerConfig(qa.DefaultSettings(), mi.tok, ms.o.Provider, tn.MaxBudget(), mi.m)
	cfg.Batching.Shaper = tn
	src := record.NewStream(strings.NewReader(corpus), record.Options{Questions: []string{ms.o.Question}})
	sum, err := scheduler.Run(ctx, cfg, src, mi.tok, fl.Replicas, record.NewWriter(io.Discard), nil)
	wall, cpu := time.Since(start), cpuTime()-cpu0
	if err != nil {
		return e2eResult{}, fmt.Errorf("%s: %w", c.label, err)
	}
	if err := tn.Save(); err != nil {
		return e2eResult{}, err
	}
	return e2eResult{wall: wall, cpu: cpu, sum: sum, choices: tn.Report(), load: loadAvg()}, nil
}
