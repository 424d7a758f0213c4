package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/input"
	"qa-shard/internal/bench"
	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
	"qa-shard/worker"
)

// benchCmd measures, in one process and interleaved repetitions, the raw
// model's best shape, qa-shard end to end (previous defaults, by hand,
// tuned from scratch and from the cache, int8) and a naive loop, and
// prints them side by side.
func benchCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard bench", pflag.ContinueOnError)
	var one bench.OneOptions
	o := &one.Options
	fs.StringVar(&o.Model, "model", "", "model directory")
	fs.StringVar(&o.Input, "input", "", "JSONL corpus")
	fs.StringVar(&o.Question, "question", "Who founded the company?", "question asked of every document")
	fs.StringVar(&o.Int8Model, "int8-model", "", "an int8 copy of --model (qa-shard quantize) for the int8 row; skipped when absent")
	fs.StringVar(&o.Devices, "devices", "cpu", "replicas, as for run")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library (default $QA_SHARD_ORT_LIB)")
	fs.IntVar(&o.Reps, "reps", 3, "interleaved repetitions of every configuration; the table shows medians")
	fs.IntVar(&o.RawBatches, "raw-batches", 3, "batches per session for each raw-model shape and repetition")
	fs.IntVar(&o.NaiveDocs, "naive-docs", 8, "documents for the naive baseline")
	fs.StringVar(&o.Provider, "provider", "", "execution provider on GPUs, as for run")
	fs.IntVar(&one.MaxBatchTokens, "max-batch-tokens", 0, "instead: one configuration at this budget in detail (pipeline vs raw model on the same batch shapes, tokenizer, naive loop)")
	fs.IntVar(&one.Threads, "threads", 0, "with --max-batch-tokens: intra-op threads per session (0: the first candidate layout)")
	fs.IntVar(&one.ReplicasPerDevice, "replicas-per-device", 0, "with --max-batch-tokens: sessions per device (0: the first candidate layout)")
	scheduling := fs.Bool("scheduling", false, "instead: the scheduling table on simulated devices (pull vs static split)")
	inputs := fs.Bool("inputs", false, "instead: throughput on simulated devices reading JSONL, gzip and zstd JSONL, and Parquet")
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel) // the tables go to standard output; standard error has only the error line
	help := "Usage: qa-shard bench --model DIR --input docs.jsonl [--devices cpu:N]\n" +
		"       qa-shard bench --model DIR --input docs.jsonl --max-batch-tokens N [--threads T] [--replicas-per-device S]\n" +
		"       qa-shard bench --scheduling\n       qa-shard bench --inputs\n\n" +
		"Measures, side by side in interleaved repetitions, the raw model at every candidate shape (the best is the ceiling),\n" +
		"qa-shard end to end with the previous defaults, by hand, tuned from scratch and from the cache, and int8,\n" +
		"and a naive batch-1 loop; with --max-batch-tokens, one pinned configuration in detail;\n" +
		"or (--inputs) throughput reading each input format on simulated devices;\n" +
		"or (--scheduling) pull-based scheduling against a static split on simulated devices."
	if err := cli.Parse(fs, args, help); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	lg, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	o.Log = lg
	if *scheduling {
		return bench.Scheduling(context.Background(), os.Stdout)
	}
	if *inputs {
		return bench.Inputs(context.Background(), os.Stdout)
	}
	if o.Model == "" || o.Input == "" {
		return fmt.Errorf("%w: --model DIR and --input FILE are required (or --scheduling)", errUsage)
	}
	if st, err := os.Stat(o.Input); err != nil || st.IsDir() {
		return fmt.Errorf("%w: --input %s is a folder or cannot be opened: bench reads one JSONL file", input.ErrInput, o.Input)
	}
	if err := worker.Init(worker.FindLib(*ortLib)); err != nil {
		return err
	}
	if one.MaxBatchTokens > 0 {
		return bench.One(context.Background(), os.Stdout, one)
	}
	return bench.Measure(context.Background(), os.Stdout, *o)
}
