package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"

	"qa-shard/cli"
	"qa-shard/filelock"
	"qa-shard/fleet"
	"qa-shard/input"
	"qa-shard/internal/isa"
	"qa-shard/logs"
	"qa-shard/metrics"
	"qa-shard/output"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/signals"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// runCmd answers the questions of a corpus: the default subcommand.
func runCmd(args []string) error {
	o, err := cli.ParseRun(args, runHelp())
	if err != nil {
		return err
	}
	log, err := logs.New(o.LogFormat, o.LogLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	h, release := signals.Handle(o.DrainTimeout, log)
	defer release()
	return runJob(h, o, log)
}

// runJob wires the pieces: input, model, replicas, outputs, scheduler.
func runJob(h *signals.Handler, o *cli.Run, log *zap.Logger) error {
	ctx, stop := h.Context, h.Drain
	if err := o.Check(); err != nil {
		return err
	}
	for _, w := range o.Warnings() {
		log.Warn(w)
	}
	questions, err := o.AllQuestions()
	if err != nil {
		return err
	}
	in, err := openInputs(o, questions, log)
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
	// Existing, foreign or mismatched outputs are refused now, not after
	// the model has loaded.
	if err := output.Precheck(output.Options{Answers: o.Output, Logits: o.Logits, Resume: o.Resume, Overwrite: o.Overwrite}); err != nil {
		return err
	}

	if err := worker.Init(worker.FindLib(o.ORTLib)); err != nil {
		return err
	}
	if logs.Resolve(o.LogFormat) == "json" { // ONNX Runtime's own logger writes plain text
		if err := worker.QuietNativeLog(); err != nil {
			log.Warn("ONNX Runtime may print plain-text lines on standard error", zap.Error(err))
		}
	}
	model, err := worker.OpenModel(o.Model)
	if err != nil {
		return err
	}
	tok, origin, err := modeldir.OpenWith(model.Dir, mecabOptions(o.MecabLib, o.MecabDicdir))
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	model.TokenizerPath = origin.Path()
	if origin.Converted() {
		log.Info("the model folder has no tokenizer.json: its tokenizer was "+origin.String(),
			zap.Strings("files", origin.Files), zap.String("converter", origin.Converter), zap.String("class", origin.Class))
	} else {
		log.Info("tokenizer: "+origin.String(), zap.Strings("files", origin.Files))
	}
	if err := model.CheckVocab(tok.VocabSize()); err != nil {
		return err
	}
	if model.MaxPositions > 0 && o.Settings.MaxSeqLen > model.MaxPositions {
		return fmt.Errorf("%w: --max-seq-len %d exceeds the model's %d positions (config.json max_position_embeddings)", errUsage, o.Settings.MaxSeqLen, model.MaxPositions)
	}
	pad := tok.PadID()
	fo := fleetOptions(o, log)
	if model.QuantizedActivations {
		// One unpadded window per batch: the layout is measured, not the budget.
		fo.Precision, fo.SingleWindow = "int8", true
	}
	fl, err := fleet.Start(ctx, fo, model)
	if ctx.Err() != nil {
		return stoppedEarly(ctx, err)
	}
	if err != nil {
		return err
	}
	defer fl.Close()

	// What the answers depend on, so --resume refuses another run's outputs.
	fp, err := output.Fingerprint(input.Fingerprint(in.plan.Files, in.plan.Rank.World), o.Model, o.Output, o.AnswerSettings(in.record.Schema), questions)
	if err != nil {
		return err
	}
	if fp.Input != "" {
		fp.InputText = input.FingerprintText(in.plan.Files, in.plan.Rank.World) // names what a resume finds changed
	}
	rank := in.plan.Rank
	if rank.World > 1 {
		fp.Block = &in.plan.Block
	}
	tn, err := fl.StartTuner(o.TuneCache, o.Model, fp.Model, log)
	if ctx.Err() != nil {
		return stoppedEarly(ctx, err)
	}
	if err != nil {
		return err
	}
	out, err := output.Open(output.Options{Answers: o.Output, Logits: o.Logits, Resume: o.Resume, Overwrite: o.Overwrite, Fingerprint: fp,
		Keep: o.Fields.Keep, Schema: in.record.Schema, TopK: o.Settings.TopK})
	if err != nil {
		return err
	}
	defer out.Close()
	if out.Complete {
		log.Info(o.Output+" is already complete; nothing to resume", zap.String("output", o.Output), zap.Int64("documents", out.Skip))
		return judgeRecords(o, log, scheduler.Summary{}.Whole(out.Counts()))
	}
	src, err := in.plan.Open(in.record, out.Input, out.Skip)
	if err != nil {
		return err
	}
	defer src.Close()
	out.SetInput(src.At)
	countCtx, stopCount := context.WithCancel(ctx)
	defer stopCount()
	go src.CountDocs(countCtx) // the total appears on the bar when counted; the first batch does not wait

	cfg := scheduler.Config{
		Settings: o.Settings, Template: tok.Template(), PadID: pad,
		MaxBatchTokens: tn.MaxBudget(), MaxBatchRows: fleet.BatchRows(o.Provider, tn.MaxBudget()), Shaper: tn, TokenizeWorkers: o.TokenizeWorkers,
		SingleWindowBatches: model.QuantizedActivations,
		MaxInFlightBytes:    int64(o.MaxInflightMB) << 20, MaxWindowsPerDoc: o.MaxWindowsPerDoc,
		BatchTimeout: o.BatchTimeout, Stop: stop, SkipBelow: out.Skip, Health: fl.Health, Status: fl.Status,
		Checkpoint: checkInputs(src, out.Checkpoint), CheckpointInterval: o.CheckpointInterval,
		Total: in.plan.Rows(), DocsTotal: src.Docs, TotalBytes: src.Bytes(), DoneBytes: src.DoneBytes(),
		ProgressInterval: o.ProgressInterval, ProgressBar: logs.Bar(o.LogFormat), Logger: log,
	}
	running, plans := fl.Starting()
	log.Info("starting", zap.String("model", o.Model), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(running)), zap.Strings("running", running), zap.Strings("shape", plans), zap.Int("questions", len(questions)), zap.Int("input_files", len(in.plan.Files)),
		zap.Int64("input_bytes", src.Bytes()), zap.Int64("resuming_at", out.Skip), zap.Bool("token_type_ids", model.TokenTypeIDs != ""),
		zap.String("logits", model.LogitsTypeName()))
	if model.QuantizedActivations {
		log.Info("the model quantizes activations at run time (dynamic int8): every batch is one unpadded window, so answers do not depend on timing (--max-batch-tokens does not apply)")
		warnPreciseInt8(log, model, isa.Detect())
	}
	var stopMetrics func()
	if cfg.Observer, stopMetrics, err = metrics.Start(ctx, metrics.Options{Addr: o.MetricsAddr, Textfile: shard.Path(o.MetricsTextfile, rank),
		Interval: o.MetricsInterval, Output: o.Output, Rank: rank.Rank, GPU: fl.Samples, Log: log}); err != nil {
		return err
	}
	defer stopMetrics()
	var lg scheduler.LogitsSink
	if out.Logits != nil {
		lg = out.Logits
	}
	var source scheduler.Source = src
	var answers scheduler.AnswerSink = out.Answers
	replicas := fl.Replicas
	if testHook != nil {
		source, answers, replicas = testHook(ctx, stop, out, source, answers, replicas)
	}
	sum, runErr := scheduler.Run(ctx, cfg, source, tok, replicas, answers, lg)
	if runErr == nil {
		runErr = src.Check() // the input was the same to its end
	}
	fl.SaveTuning(log)
	total := cfg.Total
	if n, est := src.Docs(); n > 0 && !est {
		total = n
	}
	return finish(o, out, fl, log, sum, stopOutcome(ctx, h, sum, runErr), total)
}

// checkInputs makes each checkpoint check first that the input files are
// still those read (input.Source.Check): a checkpoint must never vouch
// for documents of a changed file.
func checkInputs(src *input.Source, checkpoint func(int64) error) func(int64) error {
	return func(next int64) error {
		if err := src.Check(); err != nil {
			return err
		}
		return checkpoint(next)
	}
}

// testHook, set only by the tests (hooks_test.go, from environment
// variables a test gives the child process it starts), wraps the input and
// the answers to stop, pause or kill the process at a chosen document, so
// that those tests depend on progress, never on timing. Nil in the program.
var testHook func(ctx context.Context, stop <-chan struct{}, out *output.Outputs, src scheduler.Source, answers scheduler.AnswerSink,
	replicas []scheduler.Replica) (scheduler.Source, scheduler.AnswerSink, []scheduler.Replica)

// claim checks that the outputs can be written and locks them for the
// life of the run (see output.Claim), so a second run on the same files
// stops here, before any model is loaded.
func claim(o *cli.Run) (filelock.Set, error) {
	locks, err := output.Claim(o.Output, o.Logits, strings.Join(os.Args, " "), !o.NoLock)
	if errors.Is(err, filelock.ErrUnsupported) {
		return nil, fmt.Errorf("%w; or, making sure yourself that no other run writes these outputs, add --no-lock", err)
	}
	return locks, err
}
