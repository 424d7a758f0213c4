package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/journal"
	"qa-shard/logs"
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
	log, err := logs.New(o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	ctx, stop, release := handleSignals(o.drainTimeout, log)
	defer release()
	return runJob(ctx, stop, o, log)
}

// runJob wires the pieces: input, model, replicas, outputs, scheduler.
func runJob(ctx context.Context, stop <-chan struct{}, o *options, log *zap.Logger) error {
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
	in, err := shard.OpenInput(o.input)
	if err != nil {
		return err
	}
	defer in.Close()
	rank, span, err := partition(o, log)
	if err != nil {
		return err
	}

	if err := worker.Init(worker.FindLib(o.ortLib)); err != nil {
		return err
	}
	if logs.Resolve(o.logFormat) == "json" { // ONNX Runtime's own logger writes plain text
		if err := worker.QuietNativeLog(); err != nil {
			log.Warn("ONNX Runtime may print plain-text lines on standard error", zap.Error(err))
		}
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
	fo := o.fleetOptions(log)
	if model.QuantizedActivations {
		// One unpadded window per batch: the layout is measured, not the budget.
		fo.Precision, fo.SingleWindow = "int8", true
	}
	fl, err := fleet.Start(ctx, fo, model)
	if err != nil {
		return err
	}
	defer fl.Close()

	// What the answers depend on, so --resume refuses another run's outputs.
	fp, err := output.Fingerprint(o.input, o.model, o.output, struct {
		Settings     qa.Settings
		MaxLineBytes int
		Logits       bool
	}{o.settings, o.maxLineBytes, o.logits != ""}, questions)
	if err != nil {
		return err
	}
	if rank.World > 1 {
		fp.Shard = journal.ShardValue(journal.Shard{Rank: rank.Rank, World: rank.World, First: span.First, End: span.End})
	}
	tn, err := startTuner(o, fl, fp.Model, log)
	if err != nil {
		return err
	}
	out, err := output.Open(output.Options{Answers: o.output, Logits: o.logits, Resume: o.resume, Overwrite: o.overwrite, Fingerprint: fp})
	if err != nil {
		return err
	}
	defer out.Close()
	if out.Complete {
		log.Info(o.output+" is already complete; nothing to resume", zap.String("output", o.output), zap.Int64("documents", out.Skip))
		return nil
	}

	cfg := scheduler.Config{
		Settings: o.settings, Special: qa.Special{CLS: cls, SEP: sep}, PadID: pad,
		MaxBatchTokens: tn.MaxBudget(), MaxBatchRows: fleet.BatchRows(o.provider, tn.MaxBudget()), Shaper: tn, TokenizeWorkers: o.tokenizeWorkers,
		SingleWindowBatches: model.QuantizedActivations,
		MaxInFlightBytes:    int64(o.maxInflightMB) << 20,
		BatchTimeout:        o.batchTimeout, Stop: stop, Bounded: rank.World > 1, First: span.First, End: span.End, SkipBelow: out.Skip, Health: fl.Health, Status: fl.Status,
		Checkpoint: out.Checkpoint, CheckpointInterval: o.checkpointInterval,
		Total: span.End - span.First, TotalBytes: span.Bytes, ProgressInterval: o.progressInterval, ProgressBar: logs.Bar(o.logFormat), Logger: log,
	}
	log.Info("starting", zap.String("model", o.model), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(fl.Replicas)), zap.Int("questions", len(questions)), zap.Int64("documents_expected", span.End-span.First),
		zap.Int64("input_bytes", span.Bytes), zap.Int64("resuming_at", out.Skip), zap.Bool("token_type_ids", model.TokenTypeIDs != ""),
		zap.String("logits", model.LogitsTypeName()))
	if model.QuantizedActivations {
		log.Info("the model quantizes activations at run time (dynamic int8): every batch is one unpadded window, so answers do not depend on timing (--max-batch-tokens does not apply)")
	}
	var stopMetrics func()
	if cfg.Observer, stopMetrics, err = metrics.Start(ctx, metrics.Options{Addr: o.metricsAddr, Textfile: shard.RankPath(o.metricsTextfile, rank),
		Interval: o.metricsInterval, Output: o.output, Rank: rank.Rank, GPU: fl.Samples, Log: log}); err != nil {
		return err
	}
	defer stopMetrics()
	reader := shard.NewReader(in, shard.Options{MaxLineBytes: o.maxLineBytes, Questions: questions})
	var lg scheduler.LogitsSink
	if out.Logits != nil {
		lg = out.Logits
	}
	sum, runErr := scheduler.Run(ctx, cfg, reader, tok, fl.Replicas, out.Answers, lg)
	saveTuning(tn, log)
	return finish(o, out, fl, log, sum, runErr)
}

// partition finds this process's rank and its documents, and gives it its
// own output files when the corpus is split.
func partition(o *options, log *zap.Logger) (shard.Rank, shard.Span, error) {
	r, err := shard.DetectRank(o.rank, o.worldSize, os.LookupEnv)
	if err != nil {
		return r, shard.Span{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	span, err := shard.Block(o.input, r)
	if err != nil || r.World == 1 {
		return r, span, err
	}
	o.output, o.logits = shard.RankPath(o.output, r), shard.RankPath(o.logits, r)
	log.Info("rank", zap.Int("rank", r.Rank), zap.Int("world_size", r.World), zap.String("from", r.Source),
		zap.Int64("first_document", span.First), zap.Int64("end_document", span.End), zap.String("output", o.output))
	return r, span, nil
}

func (o *options) check() error {
	if o.model == "" {
		return fmt.Errorf("%w: --model DIR is required: a folder exported by `optimum-cli export onnx --task question-answering` (the demo: make demo)", errUsage)
	}
	if o.input == "" {
		return fmt.Errorf("%w: --input FILE is required: a JSONL file with one {\"id\", \"context\"} object per line", errUsage)
	}
	for _, q := range o.questions {
		if strings.TrimSpace(q) == "" {
			return fmt.Errorf("%w: --question is empty: ask something (Hugging Face's pipeline refuses an empty question too)", errUsage)
		}
	}
	if o.resume && (o.output == "-" || o.input == "-") {
		return fmt.Errorf("%w: --resume needs --input and --output files: standard input and output cannot be continued", errUsage)
	}
	if err := o.settings.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if o.maxBatchTokens != 0 && o.maxBatchTokens < 8 {
		return fmt.Errorf("%w: --max-batch-tokens must be at least 8 (or 0: measured)", errUsage)
	}
	if o.maxInflightMB < 1 {
		return fmt.Errorf("%w: --max-inflight-mb must be at least 1", errUsage)
	}
	if _, err := scheduler.ParseErrorLimit(o.maxErrors); err != nil {
		return fmt.Errorf("%w: --max-errors %w", errUsage, err)
	}
	if err := metrics.CheckTextfile(o.metricsTextfile); err != nil {
		return err
	}
	if o.maxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line-bytes must be at least 1024", errUsage)
	}
	return nil
}
