package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/bench"
	"qa-shard/input"
	"qa-shard/logs"
	"qa-shard/worker"
)

// benchCmd measures, in one process and one run, the pipeline against the
// raw model on the same batch shapes, the tokenizer, and a naive
// one-document-at-a-time loop, and prints the ratios.
func benchCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard bench", pflag.ContinueOnError)
	var o bench.Options
	fs.StringVar(&o.Model, "model", "", "model directory")
	fs.StringVar(&o.Input, "input", "", "JSONL corpus")
	fs.StringVar(&o.Question, "question", "Who founded the company?", "question asked of every document")
	fs.StringVar(&o.Devices, "devices", "cpu", "replicas, as for run")
	fs.IntVar(&o.Threads, "threads", 0, "intra-op threads per replica (0: cores / replicas)")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library (default $QA_SHARD_ORT_LIB)")
	fs.IntVar(&o.MaxBatchTokens, "max-batch-tokens", 8192, "token budget of one batch")
	fs.IntVar(&o.NaiveDocs, "naive-docs", 8, "documents for the naive baseline")
	fs.StringVar(&o.Provider, "provider", "", "execution provider on GPUs, as for run")
	scheduling := fs.Bool("scheduling", false, "instead: the scheduling table on simulated devices (pull vs static split)")
	inputs := fs.Bool("inputs", false, "instead: throughput on simulated devices reading JSONL, gzip and zstd JSONL, and Parquet")
	var logFormat, logLevel string
	addLogFlags(fs, &logFormat, &logLevel) // the tables go to standard output; standard error has only the error line
	help := "Usage: qa-shard bench --model DIR --input docs.jsonl [--devices cpu:N]\n       qa-shard bench --scheduling\n       qa-shard bench --inputs\n\n" +
		"Measures the pipeline against the raw model on the same batch shapes, the tokenizer and a naive loop,\n" +
		"or (--scheduling) pull-based scheduling against a static split on simulated devices."
	if err := parseFlags(fs, args, help); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if _, err := logs.New(logFormat, logLevel); err != nil {
		return err
	}
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
	return bench.Run(context.Background(), os.Stdout, o)
}
