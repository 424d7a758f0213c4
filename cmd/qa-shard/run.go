package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.uber.org/zap"
	"golang.org/x/term"

	"qa-shard/filelock"
	"qa-shard/fleet"
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
	in, err := shard.OpenInput(o.input)
	if err != nil {
		return err
	}
	defer in.Close()
	rank, err := detectRank(o)
	if err != nil {
		return err
	}
	// Before anything expensive: the outputs must be writable and this
	// run their only writer.
	locks, err := claim(o)
	if err != nil {
		return err
	}
	defer locks.Release()
	first, end, err := block(o, rank, log)
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
	fp, err := output.Fingerprint(o.input, o.model, o.output, struct {
		Settings         qa.Settings
		MaxLineBytes     int
		Logits           bool
		MaxWindowsPerDoc int
	}{o.settings, o.maxLineBytes, o.logits != "", o.maxWindowsPerDoc}, questions)
	if err != nil {
		return err
	}
	if rank.World > 1 {
		fp.Shard = journal.ShardValue(journal.Shard{Rank: rank.Rank, World: rank.World, First: first, End: end})
	}
	out, err := output.Open(output.Options{Answers: o.output, Logits: o.logits, Resume: o.resume, Overwrite: o.overwrite, Fingerprint: fp})
	if err != nil {
		return err
	}
	defer out.Close()
	if out.Complete {
		reportComplete(o.output, out.Skip)
		return nil
	}

	cfg := scheduler.Config{
		Settings: o.settings, Special: qa.Special{CLS: cls, SEP: sep}, PadID: pad,
		MaxBatchTokens: o.maxBatchTokens, MaxBatchRows: fleet.BatchRows(o.provider, o.maxBatchTokens), TokenizeWorkers: o.tokenizeWorkers,
		MaxInFlightBytes: int64(o.maxInflightMB) << 20, MaxWindowsPerDoc: o.maxWindowsPerDoc,
		BatchTimeout: o.batchTimeout, Stop: stop, Bounded: rank.World > 1, First: first, End: end, SkipBelow: out.Skip, Health: fl.Health, Status: fl.Status,
		Checkpoint: out.Checkpoint, CheckpointInterval: o.checkpointInterval,
		Total: end - first, ProgressInterval: o.progressInterval, ProgressBar: progressBar(o), Logger: log,
	}
	log.Info("starting", zap.String("model", o.model), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(fl.Replicas)), zap.Int("questions", len(questions)), zap.Int64("documents_expected", end-first),
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
	var input scheduler.Input = shard.NewReader(in, shard.Options{MaxLineBytes: o.maxLineBytes, Questions: questions})
	var answers scheduler.AnswerSink = out.Answers
	if testHook != nil {
		input, answers = testHook(ctx, stop, out, input, answers)
	}
	var lg scheduler.LogitsSink
	if out.Logits != nil {
		lg = out.Logits
	}
	sum, runErr := scheduler.Run(ctx, cfg, input, tok, fl.Replicas, answers, lg)
	return finish(o, out, fl, log, sum, runErr)
}

// testHook, set only by the tests (hooks_test.go, from environment
// variables a test gives the child process it starts), wraps the input and
// the answers to stop, pause or kill the process at a chosen document, so
// that those tests depend on progress, never on timing. Nil in the program.
var testHook func(ctx context.Context, stop <-chan struct{}, out *output.Outputs, in scheduler.Input, answers scheduler.AnswerSink) (scheduler.Input, scheduler.AnswerSink)

// detectRank finds this process's rank, and gives it its own output files
// when the corpus is split.
func detectRank(o *options) (shard.Rank, error) {
	r, err := shard.DetectRank(o.rank, o.worldSize, os.LookupEnv)
	if err != nil {
		return r, fmt.Errorf("%w: %w", errUsage, err)
	}
	if r.World > 1 {
		o.output, o.logits = shard.RankPath(o.output, r), shard.RankPath(o.logits, r)
	}
	return r, nil
}

// claim checks that the outputs can be written and locks them for the
// life of the run (see output.Claim), so a second run on the same files
// stops here, before any model is loaded.
func claim(o *options) (filelock.Set, error) {
	locks, err := output.Claim(o.output, o.logits, strings.Join(os.Args, " "), !o.noLock)
	if errors.Is(err, filelock.ErrUnsupported) {
		return nil, fmt.Errorf("%w; or, making sure yourself that no other run writes these outputs, add --no-lock", err)
	}
	return locks, err
}

// block is this rank's documents [first, end).
func block(o *options, r shard.Rank, log *zap.Logger) (int64, int64, error) {
	first, end, err := shard.Block(o.input, r)
	if err != nil || r.World == 1 {
		return first, end, err
	}
	log.Info("rank", zap.Int("rank", r.Rank), zap.Int("world_size", r.World), zap.String("from", r.Source),
		zap.Int64("first_document", first), zap.Int64("end_document", end), zap.String("output", o.output))
	return first, end, nil
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
	if o.maxBatchTokens < 8 {
		return fmt.Errorf("%w: --max-batch-tokens must be at least 8", errUsage)
	}
	if o.maxInflightMB < 1 {
		return fmt.Errorf("%w: --max-inflight-mb must be at least 1", errUsage)
	}
	if o.maxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line-bytes must be at least 1024", errUsage)
	}
	if o.maxWindowsPerDoc < 0 {
		return fmt.Errorf("%w: --max-windows-per-doc must be 0 (no limit) or more", errUsage)
	}
	return nil
}
