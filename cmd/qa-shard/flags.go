package main

import (
	"fmt"
	"strings"

	"go.uber.org/zap"

	"qa-shard/internal/cli"
	"qa-shard/internal/fleet"
)

// The run command's options, flags and checks are package cli's; here is
// the top of its --help (with main's exit-code table) and the options of
// the fleet it starts.

// runHelp is the top of --help; the flags follow it.
func runHelp() string {
	var codes strings.Builder
	for _, c := range exitCodes {
		fmt.Fprintf(&codes, "  %-3d %s\n", c.code, c.meaning)
	}
	return `qa-shard asks the same question(s) of every document of a corpus (JSONL,
gzip or zstd JSONL, Parquet; files, folders, globs) with an extractive
question-answering model (ONNX, BERT/SQuAD family) and writes every answer in
input order (JSONL, gzip or zstd JSONL, or Parquet).

Usage:
  qa-shard [run] --model DIR --input docs.jsonl --question "..." [flags]
  qa-shard [run] --model DIR --input data/ --input 'more/*.parquet' --context-field text --output answers.parquet
  qa-shard merge --output FILE RANK_FILES...   (combine the outputs of ranks)
  qa-shard status [--json] OUTPUT...           (where a run and each of its ranks stand)
  qa-shard tokenize --model DIR [--question Q] TEXT...   (how the model folder's tokenizer reads a text)
  qa-shard devices [--json]                    (GPUs as NVML numbers them)
  qa-shard bench --model DIR --input docs.jsonl   (raw model, end to end tuned and by hand, int8, naive loop)
  qa-shard quantize --model DIR --out DIR       (int8 copy of a model for the CPU)
  qa-shard eval --gold GOLD.jsonl [LABEL=]ANSWERS.jsonl...   (SQuAD exact match and F1, within and beyond token 512)
  qa-shard version
  qa-shard help [SUBCOMMAND]                   (or SUBCOMMAND --help)

Flags may come before or after arguments; --name=value and --name value both work.

Exit codes:
` + codes.String() + `
Signals: SIGINT, SIGTERM, SIGHUP (unless started ignoring it, as under nohup)
and SIGQUIT stop at once: the batches in flight are cancelled (redone on
resume), the documents done are saved, exit 75. SIGUSR1 (Slurm's warning)
stops reading, finishes the documents already read within --drain-timeout,
saves, and exits 75. The same signal delivered twice within a second (to the
process and to its group, as timeout and scancel do) counts once; a second
stop signal sent later ends the process at once, the journal at its last
checkpoint, which --resume continues.`
}

// fleetOptions are the settings of the replicas.
func fleetOptions(o *cli.RunOptions, log *zap.Logger) fleet.Options {
	return fleet.Options{Devices: o.Devices, Provider: o.Provider, ReplicasPerDevice: o.ReplicasPerDevice, Threads: o.Threads,
		FP16: o.FP16, GPUMemFraction: o.GPUMemFraction, TRTCacheDir: o.TRTCacheDir, MaxSeqLen: o.Settings.MaxSeqLen,
		MaxBatchTokens: o.MaxBatchTokens, Precision: o.Precision(), SampleInterval: o.GPUSampleInterval, TuneShare: o.TuneShare / 100, Log: log}
}
