package bench

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/input"
	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// request is what `qa-shard bench` was asked: which benchmark (Scheduling
// or Inputs on simulated devices; One when One.MaxBatchTokens is set; else
// Measure) and its options.
type request struct {
	One                 oneOptions // One.Options is Measure's
	Scheduling, Inputs  bool
	ORTLib              string // ONNX Runtime library for the model benchmarks ("": as for run)
	LogFormat, LogLevel string
}

const benchHelp = "Usage: qa-shard bench --model DIR --input docs.jsonl [--devices cpu:N]\n" +
	"       qa-shard bench --model DIR --input docs.jsonl --max-batch-tokens N [--threads T] [--replicas-per-device S]\n" +
	"       qa-shard bench --scheduling\n       qa-shard bench --inputs\n\n" +
	"Measures, side by side in interleaved repetitions, the raw model at every candidate shape (the best is the ceiling),\n" +
	"qa-shard end to end with the previous defaults, by hand, tuned from scratch and from the cache, and int8,\n" +
	"and a naive batch-1 loop; with --max-batch-tokens, one pinned configuration in detail;\n" +
	"or (--inputs) throughput reading each input format on simulated devices;\n" +
	"or (--scheduling) pull-based scheduling against a static split on simulated devices."

// parse reads the bench subcommand's flags (pflag.ErrHelp for --help) and
// checks that a model benchmark has its model and one JSONL input file.
func parse(args []string) (request, error) {
	var r request
	fs := pflag.NewFlagSet("qa-shard bench", pflag.ContinueOnError)
	o := &r.One.options
	fs.StringVar(&o.Model, "model", "", "model directory")
	fs.StringVar(&o.Input, "input", "", "JSONL corpus")
	fs.StringVar(&o.Question, "question", "Who founded the company?", "question asked of every document")
	fs.StringVar(&o.Int8Model, "int8-model", "", "an int8 copy of --model (qa-shard quantize) for the int8 row; skipped when absent")
	fs.StringVar(&o.Devices, "devices", "cpu", "replicas, as for run")
	fs.StringVar(&r.ORTLib, "ort-lib", "", "ONNX Runtime library (default $QA_SHARD_ORT_LIB, else the one installed beside this binary)")
	fs.IntVar(&o.Reps, "reps", 3, "interleaved repetitions of every configuration; the table shows medians")
	fs.IntVar(&o.RawBatches, "raw-batches", 3, "batches per session for each raw-model shape and repetition")
	fs.IntVar(&o.NaiveDocs, "naive-docs", 8, "documents for the naive baseline")
	fs.StringVar(&o.Provider, "provider", "", "execution provider on GPUs, as for run")
	fs.IntVar(&r.One.MaxBatchTokens, "max-batch-tokens", 0, "instead: one configuration at this budget in detail (pipeline vs raw model on the same batch shapes, tokenizer, naive loop)")
	fs.IntVar(&r.One.Threads, "threads", 0, "with --max-batch-tokens: intra-op threads per session (0: the first candidate layout)")
	fs.IntVar(&r.One.ReplicasPerDevice, "replicas-per-device", 0, "with --max-batch-tokens: sessions per device (0: the first candidate layout)")
	fs.BoolVar(&r.Scheduling, "scheduling", false, "instead: the scheduling table on simulated devices (pull vs static split)")
	fs.BoolVar(&r.Inputs, "inputs", false, "instead: throughput on simulated devices reading JSONL, gzip and zstd JSONL, and Parquet")
	cli.AddLogFlags(fs, &r.LogFormat, &r.LogLevel) // the tables go to standard output; standard error has only the error line
	if err := cli.Parse(fs, args, benchHelp); err != nil {
		return r, err
	}
	if err := cli.NoArgs(fs); err != nil {
		return r, err
	}
	if r.Scheduling || r.Inputs {
		return r, nil
	}
	if o.Model == "" || o.Input == "" {
		return r, fmt.Errorf("%w: --model DIR and --input FILE are required (or --scheduling)", cli.ErrUsage)
	}
	for flag, dir := range map[string]string{"--model": o.Model, "--int8-model": o.Int8Model} {
		if err := modeldir.CheckFolder(dir); dir != "" && err != nil {
			return r, fmt.Errorf("%s: %w", flag, err)
		}
	}
	if st, err := os.Stat(o.Input); err != nil || st.IsDir() {
		return r, fmt.Errorf("%w: --input %s is a folder or cannot be opened: bench reads one JSONL file", input.ErrInput, o.Input)
	}
	return r, nil
}

// Run is `qa-shard bench`: it measures, in one process and interleaved repetitions, the raw
// model's best shape, qa-shard end to end (previous defaults, by hand,
// tuned from scratch and from the cache, int8) and a naive loop, and
// prints them side by side.
func Run(args []string) error {
	r, err := parse(args)
	if err != nil {
		return err
	}
	lg, err := logs.New(r.LogFormat, r.LogLevel)
	if err != nil {
		return err
	}
	r.One.Log = lg
	switch {
	case r.Scheduling:
		return scheduling(context.Background(), os.Stdout)
	case r.Inputs:
		return inputs(context.Background(), os.Stdout)
	}
	if err := worker.Init(worker.FindLib(r.ORTLib)); err != nil {
		return err
	}
	if r.One.MaxBatchTokens > 0 {
		return one(context.Background(), os.Stdout, r.One)
	}
	return measure(context.Background(), os.Stdout, r.One.options)
}
