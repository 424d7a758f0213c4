package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"qa-shard/bench"
	"qa-shard/worker"
)

// benchCmd measures, in one process and one run, the pipeline against the
// raw model on the same batch shapes, the tokenizer, and a naive
// one-document-at-a-time loop, and prints the ratios.
func benchCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard bench", flag.ContinueOnError)
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *scheduling {
		if err := bench.Scheduling(context.Background(), os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "qa-shard bench: %v\n", err)
			return exitInternal
		}
		return exitOK
	}
	err := worker.Init(defaultORTLib(*ortLib))
	if err == nil {
		err = bench.Run(context.Background(), os.Stdout, o)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard bench: %v\n", err)
		return exitCode(err)
	}
	return exitOK
}
