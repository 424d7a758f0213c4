package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.uber.org/zap"
	"golang.org/x/term"

	"qa-shard/fleet"
	"qa-shard/input"
	"qa-shard/journal"
	"qa-shard/metrics"
	"qa-shard/output"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/worker"
	"qa-shard/worker/tokenizer"
)

// runCmd answers the questions of a corpus: the default subcommand.
func runCmd(args []string) error {
	o, err := parseRun(args)
	if err != nil {
		return err
	}
	ctx, stop, release := handleSignals(o.drainTimeout)
	defer release()
	return runJob(ctx, stop, o)
}

// runJob wires the pieces: input, model, replicas, outputs, scheduler.
func runJob(ctx context.Context, stop <-chan struct{}, o *options) error {
	log, err := newLogger(o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	if err := o.check(); err != nil {
		return err
	}
	questions := o.questions
	if o.questionsFile != "" {
		qs, err := shard.ReadQuestionsFile(o.questionsFile)
		if err != nil {
			return fmt.Errorf("%w: --questions-file: %w", errUsage, err)
		}
		questions = append(questions, qs...)
	}
	in, err := openInputs(o, questions, log)
	if err != nil {
		return err
	}

	if err := worker.Init(worker.FindLib(o.ortLib)); err != nil {
		return err
	}
	model, err := worker.OpenModel(o.model)
	if err != nil {
		return err
	}
	tok, err := tokenizer.Load(model.TokenizerPath)
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	if model.MaxPositions > 0 && o.settings.MaxSeqLen > model.MaxPositions {
		return fmt.Errorf("%w: --max-seq-len %d exceeds the model's %d positions (config.json max_position_embeddings)", errUsage, o.settings.MaxSeqLen, model.MaxPositions)
	}
	cls, sep, pad := tok.SpecialIDs()
	fl, err := fleet.Start(ctx, o.fleetOptions(log), model)
	if err != nil {
		return err
	}
	defer fl.Close()

	// What the answers depend on, so --resume refuses another run's outputs.
	fp, err := output.Fingerprint(input.Fingerprint(in.plan.Files, in.plan.Rank.World), o.model, o.output, struct {
		Settings     qa.Settings
		MaxLineBytes int
		Logits       bool
		Fields       shard.Fields
		Schema       shard.Schema
	}{o.settings, o.maxLineBytes, o.logits != "", in.record.Fields, in.record.Schema}, questions)
	if err != nil {
		return err
	}
	if r := in.plan.Rank; r.World > 1 {
		fp.Shard = journal.ShardValue(journal.Shard{Rank: r.Rank, World: r.World, From: in.plan.Lo, To: in.plan.Hi, Total: in.plan.Total})
	}
	out, err := output.Open(output.Options{Answers: o.output, Logits: o.logits, Resume: o.resume, Overwrite: o.overwrite, Fingerprint: fp,
		Keep: o.fields.Keep, Schema: in.record.Schema, TopK: o.settings.TopK})
	if err != nil {
		return err
	}
	defer out.Close()
	if out.Complete {
		reportComplete(o.output, out.Skip)
		return nil
	}
	src, err := in.plan.Open(in.record, out.Input, out.Skip)
	if err != nil {
		return err
	}
	defer src.Close()
	out.SetInput(src.At)

	cfg := scheduler.Config{
		Settings: o.settings, Special: qa.Special{CLS: cls, SEP: sep}, PadID: pad,
		MaxBatchTokens: o.maxBatchTokens, MaxBatchRows: fleet.BatchRows(o.provider, o.maxBatchTokens), TokenizeWorkers: o.tokenizeWorkers,
		MaxInFlightBytes: int64(o.maxInflightMB) << 20,
		BatchTimeout:     o.batchTimeout, Stop: stop, SkipBelow: out.Skip, Health: fl.Health, Status: fl.Status,
		Checkpoint: out.Checkpoint, CheckpointInterval: o.checkpointInterval,
		Total: in.plan.Rows(), ProgressInterval: o.progressInterval, ProgressBar: progressBar(o), Logger: log,
	}
	log.Info("starting", zap.String("model", o.model), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(fl.Replicas)), zap.Int("questions", len(questions)), zap.Int("input_files", len(in.plan.Files)), zap.Int64("input_bytes", src.Bytes()),
		zap.Int64("resuming_at", out.Skip), zap.Bool("token_type_ids", model.TokenTypeIDs != ""), zap.String("logits", model.LogitsTypeName()))
	if o.metricsAddr != "" {
		reg := metrics.New()
		reg.SetGPUSource(fl.Samples)
		addr, err := metrics.Serve(ctx, o.metricsAddr, reg, log)
		if err != nil {
			return fmt.Errorf("%w: --metrics-addr: %w", errUsage, err)
		}
		cfg.Observer = reg.Observer()
		log.Info("metrics", zap.String("url", "http://"+addr.String()+"/metrics"))
	}
	var lg scheduler.LogitsSink
	if out.Logits != nil {
		lg = out.Logits
	}
	sum, runErr := scheduler.Run(ctx, cfg, src, tok, fl.Replicas, out.Answers, lg)
	return finish(o, out, fl, log, sum, runErr)
}

// progressBar is standard error when a person watches it.
func progressBar(o *options) io.Writer {
	if o.logFormat != "json" && term.IsTerminal(int(os.Stderr.Fd())) {
		return os.Stderr
	}
	return nil
}

func (o *options) check() error {
	if o.model == "" {
		return fmt.Errorf("%w: --model DIR is required: a folder exported by `optimum-cli export onnx --task question-answering` (the demo: make demo)", errUsage)
	}
	if len(o.inputs) == 0 {
		return fmt.Errorf("%w: --input is required: JSONL (.jsonl, .jsonl.gz, .jsonl.zst) or Parquet files, folders or globs, with one {\"id\", \"context\"} record per line or row", errUsage)
	}
	for _, q := range o.questions {
		if strings.TrimSpace(q) == "" {
			return fmt.Errorf("%w: --question is empty: ask something (Hugging Face's pipeline refuses an empty question too)", errUsage)
		}
	}
	if o.resume && (o.output == "-" || slices.Contains(o.inputs, "-")) {
		return fmt.Errorf("%w: --resume needs --input and --output files: standard input and output cannot be continued", errUsage)
	}
	if err := o.settings.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if o.maxBatchTokens < 8 {
		return fmt.Errorf("%w: --max-batch-tokens must be at least 8", errUsage)
	}
	if o.maxInflightMB < 1 {
		return fmt.Errorf("%w: --max-inflight-mb must be at least 1", errUsage)
	}
	if o.idType != "auto" && o.idType != "string" && o.idType != "integer" {
		return fmt.Errorf("%w: --id-type %q: use auto, string or integer", errUsage, o.idType)
	}
	if err := checkKeep(o.fields.Keep); err != nil {
		return err
	}
	if o.maxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line-bytes must be at least 1024", errUsage)
	}
	return nil
}
