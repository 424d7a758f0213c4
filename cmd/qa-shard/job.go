package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"golang.org/x/term"

	"qa-shard/journal"
	"qa-shard/metrics"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/worker"
	"qa-shard/worker/tokenizer"
)

// runJob wires the pieces: input, model, replicas, outputs, scheduler.
func runJob(ctx context.Context, stop <-chan struct{}, o *options) (int, error) {
	log, err := newLogger(o.logFormat, o.logLevel)
	if err != nil {
		return 0, err
	}
	defer log.Sync()
	if err := o.check(); err != nil {
		return 0, err
	}
	questions := []string(o.questions)
	if o.questionsFile != "" {
		qs, err := shard.ReadQuestionsFile(o.questionsFile)
		if err != nil {
			return 0, fmt.Errorf("%w: --questions-file: %v", errUsage, err)
		}
		questions = append(questions, qs...)
	}
	in, err := openInput(o.input)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	rank, first, end, err := partition(o, log)
	if err != nil {
		return 0, err
	}

	if err := worker.Init(defaultORTLib(o.ortLib)); err != nil {
		return 0, err
	}
	model, err := worker.OpenModel(o.model)
	if err != nil {
		return 0, err
	}
	tok, err := tokenizer.Load(model.TokenizerPath)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", worker.ErrConfig, err)
	}
	if model.MaxPositions > 0 && o.settings.MaxSeqLen > model.MaxPositions {
		return 0, fmt.Errorf("%w: --max-seq-len %d exceeds the model's %d positions (config.json max_position_embeddings)", errUsage, o.settings.MaxSeqLen, model.MaxPositions)
	}
	cls, sep, pad := tok.SpecialIDs()
	fl, err := startFleet(ctx, o, model, log)
	if err != nil {
		return 0, err
	}
	defer fl.close()

	fp, err := fingerprint(o, questions)
	if err != nil {
		return 0, err
	}
	if rank.World > 1 {
		fp.Shard = journal.ShardValue(journal.Shard{Rank: rank.Rank, World: rank.World, First: first, End: end})
	}
	out, err := openOutputs(o, fp)
	if err != nil {
		return 0, err
	}
	defer out.close()
	if out.complete {
		fmt.Fprintf(os.Stderr, "qa-shard: %s is already complete (%d documents); nothing to resume\n", o.output, out.skip)
		return exitOK, nil
	}

	cfg := scheduler.Config{
		Settings: o.settings, Special: qa.Special{CLS: cls, SEP: sep}, PadID: pad,
		MaxBatchTokens: o.maxBatchTokens, MaxBatchRows: batchRows(o), TokenizeWorkers: o.tokenizeWorkers, SingleWindowBatches: model.QuantizedActivations,
		MaxInFlightBytes: int64(o.maxInflightMB) << 20,
		BatchTimeout:     o.batchTimeout, Stop: stop, Bounded: rank.World > 1, First: first, End: end, SkipBelow: out.skip, Health: fl.health, Status: fl.status,
		Checkpoint: out.checkpoint, CheckpointInterval: o.checkpointInterval,
		Total: end - first, ProgressInterval: o.progressInterval, ProgressBar: progressBar(o), Logger: log,
	}
	log.Info("starting", zap.String("model", o.model), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(fl.replicas)), zap.Int("questions", len(questions)), zap.Int64("documents_expected", end-first),
		zap.Int64("resuming_at", out.skip), zap.Bool("token_type_ids", model.TokenTypeIDs != ""), zap.String("logits", model.LogitsTypeName()))
	if model.QuantizedActivations {
		log.Info("the model quantizes activations at run time (dynamic int8): every batch is one unpadded window, so answers do not depend on timing (--max-batch-tokens does not apply)")
	}
	if o.metricsAddr != "" {
		reg := metrics.New()
		reg.SetGPUSource(fl.samples)
		addr, err := metrics.Serve(ctx, o.metricsAddr, reg, log)
		if err != nil {
			return 0, fmt.Errorf("%w: --metrics-addr: %v", errUsage, err)
		}
		cfg.Observer = reg.Observer()
		log.Info("metrics", zap.String("url", "http://"+addr.String()+"/metrics"))
	}
	reader := shard.NewReader(in, shard.Options{MaxLineBytes: o.maxLineBytes, Questions: questions})
	var lg scheduler.LogitsSink
	if out.logits != nil {
		lg = out.logits
	}
	sum, runErr := scheduler.Run(ctx, cfg, reader, tok, fl.replicas, out.answers, lg)
	return finish(o, out, log, sum, runErr)
}

// finish makes what was written durable whatever happened, and maps the
// outcome to an exit code.
func finish(o *options, out *outputs, log *zap.Logger, sum scheduler.Summary, runErr error) (int, error) {
	complete := runErr == nil && !sum.Interrupted
	var err error
	if complete {
		err = out.finish(sum.Next)
	} else {
		err = out.checkpoint(sum.Next)
	}
	if err != nil {
		return 0, fmt.Errorf("saving the output after %d documents: %w", sum.Next, err)
	}
	report(log, o, sum)
	resume := fmt.Sprintf("rerun the same command with --resume to continue from document %d", sum.Next)
	switch {
	case runErr == nil && sum.Interrupted:
		fmt.Fprintf(os.Stderr, "qa-shard: interrupted; %d documents are saved: %s\n", sum.Next, resume)
		return exitInterrupted, nil
	case errors.Is(runErr, scheduler.ErrAllReplicasFailed), errors.Is(runErr, context.Canceled):
		fmt.Fprintf(os.Stderr, "qa-shard: stopped: %v; %d documents are saved: %s\n", runErr, sum.Next, resume)
		return exitInterrupted, nil
	case runErr != nil:
		return 0, fmt.Errorf("run stopped after %d documents: %w (they are saved: %s)", sum.Next, runErr, resume)
	case sum.RecordErrors > 0:
		return exitRecords, nil
	}
	return exitOK, nil
}

// partition finds this process's rank and its block of documents [first,
// end), and gives it its own output files when the corpus is split. One
// streaming pass over the input: a line count (for progress) for a single
// process, the byte-balanced block for a rank; standard input is not
// counted (end 0: unknown).
func partition(o *options, log *zap.Logger) (shard.Rank, int64, int64, error) {
	r, err := shard.DetectRank(o.rank, o.worldSize, os.LookupEnv)
	if err != nil {
		return r, 0, 0, fmt.Errorf("%w: %v", errUsage, err)
	}
	if r.World == 1 {
		if o.input == "-" {
			return r, 0, 0, nil
		}
		total, err := shard.CountLines(o.input)
		if err != nil {
			return r, 0, 0, fmt.Errorf("counting lines of %s: %w", o.input, err)
		}
		return r, 0, total, nil
	}
	if o.input == "-" {
		return r, 0, 0, fmt.Errorf("%w: ranks need --input FILE: standard input cannot be split", errUsage)
	}
	first, end, err := shard.ByteBlock(o.input, r)
	if err != nil {
		return r, 0, 0, fmt.Errorf("splitting %s among ranks: %w", o.input, err)
	}
	o.output, o.logits = shard.RankPath(o.output, r), shard.RankPath(o.logits, r)
	log.Info("rank", zap.Int("rank", r.Rank), zap.Int("world_size", r.World), zap.String("from", r.Source),
		zap.Int64("first_document", first), zap.Int64("end_document", end), zap.String("output", o.output))
	return r, first, end, nil
}

// fingerprint identifies what the answers depend on, so --resume refuses
// to mix outputs of different inputs, models or settings.
func fingerprint(o *options, questions []string) (journal.Fingerprint, error) {
	if o.output == "-" || o.input == "-" {
		if o.resume {
			return journal.Fingerprint{}, fmt.Errorf("%w: --resume needs --input and --output files", errUsage)
		}
		return journal.Fingerprint{}, nil
	}
	in, err := journal.FingerprintFile(o.input)
	if err != nil {
		return journal.Fingerprint{}, fmt.Errorf("fingerprinting --input: %w", err)
	}
	model, err := journal.FingerprintModel(o.model)
	if err != nil {
		return journal.Fingerprint{}, fmt.Errorf("fingerprinting --model: %w", err)
	}
	settings, err := journal.FingerprintValue(struct {
		Settings     qa.Settings
		MaxLineBytes int
		Logits       bool
	}{o.settings, o.maxLineBytes, o.logits != ""})
	if err != nil {
		return journal.Fingerprint{}, err
	}
	qs, err := journal.FingerprintValue(questions)
	if err != nil {
		return journal.Fingerprint{}, err
	}
	return journal.Fingerprint{Input: in, Model: model, Settings: settings, Questions: qs}, nil
}

// progressBar is standard error when a person watches it.
func progressBar(o *options) io.Writer {
	if o.logFormat != "json" && term.IsTerminal(int(os.Stderr.Fd())) {
		return os.Stderr
	}
	return nil
}

// defaultORTLib falls back, after --ort-lib and $QA_SHARD_ORT_LIB, to the
// library `make ort` puts beside `make build`'s binary.
func defaultORTLib(flagValue string) string {
	if flagValue != "" || os.Getenv(worker.EnvORTLib) != "" {
		return flagValue
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(exe), "..", "ort", "libonnxruntime.so.1")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func (o *options) check() error {
	if o.model == "" {
		return fmt.Errorf("%w: --model DIR is required: a folder exported by `optimum-cli export onnx --task question-answering` (the demo: make demo)", errUsage)
	}
	if o.input == "" {
		return fmt.Errorf("%w: --input FILE is required: a JSONL file with one {\"id\", \"context\"} object per line", errUsage)
	}
	if err := o.settings.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if o.maxBatchTokens < 8 {
		return fmt.Errorf("%w: --max-batch-tokens must be at least 8", errUsage)
	}
	if o.maxInflightMB < 1 {
		return fmt.Errorf("%w: --max-inflight-mb must be at least 1", errUsage)
	}
	if o.maxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line-bytes must be at least 1024", errUsage)
	}
	return nil
}

// openInput opens the corpus and pre-counts its lines for progress; the
// count streams the file and is skipped for standard input.
func openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(bufio.NewReaderSize(os.Stdin, 1<<20)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open --input: %v", errUsage, err)
	}
	return f, nil
}

// report logs the summary and prints it for a person.
func report(log *zap.Logger, o *options, s scheduler.Summary) {
	log.Info("done", zap.Int64("documents", s.Documents), zap.Int64("answers", s.Pairs),
		zap.Int64("windows", s.Windows), zap.Int64("tokens", s.Tokens), zap.Float64("padding_percent", s.PaddingPercent()),
		zap.Int64("record_errors", s.RecordErrors), zap.Duration("wall", s.Wall), zap.Float64("docs_per_s", s.DocsPerSecond()),
		zap.Any("windows_per_replica", s.ReplicaCounts))
	w := os.Stderr
	fmt.Fprintf(w, "\nqa-shard summary\n")
	fmt.Fprintf(w, "  documents      %d (%.1f/s)\n", s.Documents, s.DocsPerSecond())
	fmt.Fprintf(w, "  answers        %d\n", s.Pairs)
	fmt.Fprintf(w, "  windows        %d in %d batches\n", s.Windows, s.Batches)
	fmt.Fprintf(w, "  tokens         %d (padding %.1f%%)\n", s.Tokens, s.PaddingPercent())
	fmt.Fprintf(w, "  record errors  %d\n", s.RecordErrors)
	fmt.Fprintf(w, "  wall time      %s\n", s.Wall.Round(time.Millisecond))
	fmt.Fprintf(w, "  answers file   %s\n", o.output)
	if o.logits != "" {
		fmt.Fprintf(w, "  logits file    %s\n", o.logits)
	}
}
