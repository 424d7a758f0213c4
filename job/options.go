package job

import (
	"fmt"
	"slices"
	"time"

	"qa-shard/internal/cli"
	"qa-shard/internal/record"
	"qa-shard/output"
	"qa-shard/qa"
)

// Options is the run command's settings; every field is a flag, and every
// flag can also be set in --config FILE.yaml under the same name. They are
// grouped by what uses them, so a step of the run that needs one group
// takes only that group.
type Options struct {
	Config string
	// CheckOnly is --check: say whether the run would start, and stop.
	CheckOnly bool
	Settings  qa.Settings // how answers are found (the answer settings)
	InputOptions
	OutputOptions
	ModelOptions
	DeviceOptions
	RankOptions
	PipelineOptions
	ObserveOptions
}

// InputOptions are what is read and how records are read.
type InputOptions struct {
	Inputs        []string
	Questions     []string
	QuestionsFile string
	Fields        record.Fields
	IDType        string
	MaxLineBytes  int
}

// OutputOptions are where the answers go and how existing outputs are
// treated.
type OutputOptions struct {
	Output, Logits            string
	Overwrite, Resume, NoLock bool
}

// ModelOptions open the model: its folder, ONNX Runtime and MeCab.
type ModelOptions struct {
	Model, ORTLib, ModelCache, Revision string
	MecabLib, MecabDicdir               string
	// Graph is --graph: how a checkpoint's graph is built (auto, fused,
	// standard).
	Graph string
}

// DeviceOptions are where replicas run and how their sessions are made.
type DeviceOptions struct {
	Devices, Provider, TRTCacheDir string
	Threads, ReplicasPerDevice     int
	// Precision is --precision (fp32, fp16); --fp16, TensorRT's older
	// flag, means fp16.
	Precision         string
	FP16              bool
	GPUMemFraction    float64
	GPUSampleInterval time.Duration
}

// RankOptions name this process among the ranks sharing the corpus.
type RankOptions struct {
	Rank, WorldSize int
}

// PipelineOptions are the limits of the pipeline: batch shapes and their
// search, memory, workers, timeouts, checkpoints and errors tolerated.
type PipelineOptions struct {
	MaxBatchTokens   int
	MaxInflightMB    int
	MaxWindowsPerDoc int
	TokenizeWorkers  int
	TuneCache        string
	TuneShare        float64 // percent of the run the shape search may take

	BatchTimeout, DrainTimeout, CheckpointInterval time.Duration
	MaxErrors                                      string
}

// ObserveOptions are how the run is watched: metrics, logs, progress.
type ObserveOptions struct {
	MetricsAddr, MetricsTextfile, LogFormat, LogLevel string
	MetricsInterval, ProgressInterval                 time.Duration
}

// AnswerSettings are the settings of o that the answers depend on, with
// the run's record schema.
func (o *Options) AnswerSettings(schema record.Schema) output.AnswerSettings {
	return output.AnswerSettings{QA: o.Settings, Fields: o.Fields, Schema: schema, MaxLineBytes: o.MaxLineBytes,
		Logits: o.Logits != "", MaxWindowsPerDoc: o.MaxWindowsPerDoc}
}

// allQuestions are the --question flags followed by the lines of
// --questions-file.
func (o InputOptions) allQuestions() ([]string, error) {
	if o.QuestionsFile == "" {
		return o.Questions, nil
	}
	qs, err := record.ReadQuestionsFile(o.QuestionsFile)
	if err != nil {
		return nil, fmt.Errorf("%w: --questions-file: %w", cli.ErrUsage, err)
	}
	return append(slices.Clone(o.Questions), qs...), nil
}
