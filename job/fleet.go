package job

import (
	"context"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/tokenizer"
	"qa-shard/worker"
)

// Replicas is what a fleet of replicas is started from: the devices'
// settings, the batch shapes' (Pipeline), the longest window, the job's
// ranks (CPU ranks on one node share its cores) and, for tests and the
// benchmarks, how "sim:..." devices are built.
type Replicas struct {
	Devices   DeviceOptions
	Pipeline  PipelineOptions
	MaxSeqLen int
	Ranks     int
	Simulate  fleet.Simulator
	Log       *zap.Logger
}

// fleetOptions are the settings of the replicas of r that run model g: a
// model that quantizes its activations at run time runs one unpadded
// window per batch, in int8 (the layout is measured, not the budget).
func fleetOptions(r Replicas, g *worker.Model) fleet.Options {
	d, p := r.Devices, r.Pipeline
	fo := fleet.Options{Devices: d.Devices, Provider: d.Provider, ReplicasPerDevice: d.ReplicasPerDevice, Threads: d.Threads,
		FP16: d.Precision == "fp16", GPUMemFraction: d.GPUMemFraction, TRTCacheDir: d.TRTCacheDir, MaxSeqLen: r.MaxSeqLen,
		MaxBatchTokens: p.MaxBatchTokens, Precision: d.Precision, SampleInterval: d.GPUSampleInterval, TuneShare: p.TuneShare / 100,
		Ranks: r.Ranks, Simulate: r.Simulate, Log: r.Log}
	if g.QuantizedActivations {
		fo.Precision, fo.SingleWindow = "int8", true
	}
	return fo
}

// StartFleet opens the replicas of r for model g (fleet.Start).
func StartFleet(ctx context.Context, r Replicas, g *worker.Model) (*fleet.Fleet, error) {
	return fleet.Start(ctx, fleetOptions(r, g), g)
}

// SchedulerConfig is the scheduler's configuration that every run of
// model g shares, whoever runs it: the answer settings s, tok's pair
// template and pad token, and batches cut for provider's devices with a
// budget of tokens a batch. A run adds its checkpoints, faults and
// reporting (job/run.go); qa-shard bench runs it as it is.
func SchedulerConfig(s qa.Settings, tok *tokenizer.Tokenizer, provider string, budget int, g *worker.Model) scheduler.Config {
	return scheduler.Config{Settings: s, Template: tok.Template(), PadID: tok.PadID(), Batching: batching(provider, budget, g)}
}

// batching is how batches are cut for model g on provider's devices with
// a budget of tokens a batch: rows bounded as the provider needs
// (fleet.BatchRows), and one unpadded window a batch for a model that
// quantizes its activations at run time, so its answers do not depend on
// timing.
func batching(provider string, budget int, g *worker.Model) scheduler.Batching {
	return scheduler.Batching{MaxBatchTokens: budget, MaxBatchRows: fleet.BatchRows(provider, budget), SingleWindowBatches: g.QuantizedActivations}
}
