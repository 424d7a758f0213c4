// Package job assembles one run of qa-shard from its options: the
// inputs, the outputs, the model, the fleet of replicas, the tuner, the
// metrics and the scheduler, in one order (Run), and how the run ends
// (outcome.go). `qa-shard run` goes through Run, and with it the Python
// pipeline and the answer checks of quantize and export, which run that
// command; `qa-shard bench` starts its fleets with StartFleet and builds
// its scheduler configuration with SchedulerConfig, the rules a run
// follows.
package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/input"
	"qa-shard/internal/cli"
	"qa-shard/internal/filelock"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/isa"
	"qa-shard/internal/logs"
	"qa-shard/internal/record"
	"qa-shard/internal/signals"
	"qa-shard/metrics"
	"qa-shard/output"
	"qa-shard/qa"
	"qa-shard/qamodel"
	"qa-shard/quantize"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/tune"
	"qa-shard/worker"
)

// Env is what the program gives a run beside its options.
type Env struct {
	// Build is this build's version, for the run's metrics.
	Build string
	// Simulate builds the replicas of a "sim:..." --devices spec, for tests
	// (nil: such a spec is refused).
	Simulate fleet.Simulator
}

// Run runs one job as a list of steps, each a function below: check
// the options, open the inputs, claim the outputs, open the model, start
// the fleet, fingerprint the run, start the tuner, open the outputs, open
// the source, start the metrics, run the scheduler; finish ends it (what
// is saved, what the outcome means: outcome.go).
func Run(h *signals.Handler, o *Options, env Env, log *zap.Logger) error {
	ctx := h.Context
	questions, err := checkOptions(o, log)
	if err != nil {
		return err
	}
	in, err := openInputs(o.InputOptions, o.RankOptions, &o.OutputOptions, questions, log)
	if err != nil {
		return err
	}
	if o.CheckOnly {
		return checkOnly(o, in, questions, log)
	}
	locks, err := claimOutputs(o.OutputOptions)
	if err != nil {
		return err
	}
	defer locks.Release()
	graph, err := ModelGraph(o, deviceTarget(o))
	if err != nil {
		return err
	}
	m, err := openModel(o.ModelOptions, graph, o.Settings.MaxSeqLen, o.LogFormat, log)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := questionsFit(m.Tok, questions, o.Settings); err != nil {
		return err
	}
	fl, err := startFleet(ctx, o, env.Simulate, m, in.plan.Rank.World, log)
	if err != nil {
		return err
	}
	defer fl.Close()
	fp, err := fingerprintRun(o, m, in, questions)
	if err != nil {
		return err
	}
	tn, err := fl.StartTuner(o.TuneCache, m.Graph.Fingerprint, fp.Model, log)
	if err = stoppedEarly(ctx, err); err != nil {
		return err
	}
	out, err := openOutputs(o.OutputOptions, o.Fields.Keep, o.Settings.TopK, in, fp)
	if err != nil {
		return err
	}
	defer out.Close()
	end := ending(o, fl, log)
	if out.Complete {
		if err := in.plan.CheckComplete(o.Output, *out.Input); err != nil {
			return err
		}
		log.Info(o.Output+" is already complete; nothing to resume", zap.String("output", o.Output), zap.Int64("documents", out.Skip))
		return judge(end, log, scheduler.Summary{}.Whole(out.Counts()))
	}
	countCtx, stopCount := context.WithCancel(ctx)
	defer stopCount() // before src.Close: defers run last in, first out
	src, err := openSource(countCtx, in, out)
	if err != nil {
		return errors.Join(err, out.Discard()) // refused before its first document: nothing is left behind
	}
	defer src.Close()
	cfg := schedulerConfig(o, m, tn, fl, out, src, in, h.Drain, log)
	logStart(log, o, m, fl, in, src, out, len(questions))
	stopMetrics, err := startMetrics(ctx, o, env.Build, in.plan.Rank, fl, out.Journal(), &cfg, log)
	if err != nil {
		return errors.Join(err, out.Discard())
	}
	defer stopMetrics()
	sum, runErr := runScheduler(ctx, h.Drain, cfg, src, m, fl, out)
	fl.SaveTuning(log)
	total := cfg.Total
	if n, est := src.Docs(); n > 0 && !est {
		total = n
	}
	return finish(end, out, log, sum, cause(ctx, h, sum, runErr), total)
}

// ending is what finish needs of the run to end it.
func ending(o *Options, fl *fleet.Fleet, log *zap.Logger) runEnd {
	return runEnd{Model: o.Model, Output: o.Output, MaxErrors: o.MaxErrors, Report: func(s scheduler.Summary) { report(log, o.LogFormat, o.OutputOptions, s, fl) }}
}

// checkOptions refuses settings no run can use, logs the warnings, and
// returns every question, each once (one asked twice is said so).
func checkOptions(o *Options, log *zap.Logger) ([]string, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	for _, w := range o.DeviceOptions.Warnings() {
		log.Warn(w)
	}
	all, err := o.InputOptions.allQuestions()
	if err != nil {
		return nil, err
	}
	questions := record.CleanQuestions(all)
	for _, q := range repeated(all) {
		log.Warn(fmt.Sprintf("the question %q is given more than once (--question, --questions-file): it is asked once, and each document gets one record for it", q))
	}
	return questions, nil
}

// repeated lists, once each, the questions given more than once (after
// trimming, as they are asked).
func repeated(qs []string) []string {
	seen, out := map[string]int{}, []string(nil)
	for _, q := range qs {
		q = strings.TrimSpace(q)
		if seen[q]++; seen[q] == 2 && q != "" {
			out = append(out, q)
		}
	}
	return out
}

// claimOutputs, before anything expensive: the outputs must be writable,
// this run their only writer, and not existing, foreign or mismatched
// (refused now, not after the model has loaded).
func claimOutputs(o OutputOptions) (filelock.Set, error) {
	locks, err := claim(o)
	if err != nil {
		return nil, err
	}
	if err := output.Precheck(output.Options{Answers: o.Output, Logits: o.Logits, Resume: o.Resume, Overwrite: o.Overwrite}); err != nil {
		locks.Release()
		return nil, err
	}
	return locks, nil
}

// openModel loads ONNX Runtime and reads the model folder and its
// tokenizer (for windows of maxSeqLen tokens), refusing a folder whose
// parts do not fit together; a checkpoint's graph is built as graph says;
// logFormat json quiets the runtime's own log.
func openModel(o ModelOptions, graph qamodel.Graph, maxSeqLen int, logFormat string, log *zap.Logger) (*qamodel.Model, error) {
	if err := worker.Init(worker.FindLib(o.ORTLib)); err != nil {
		return nil, err
	}
	if logs.Resolve(logFormat) == "json" { // ONNX Runtime's own logger writes plain text
		if err := worker.QuietNativeLog(); err != nil {
			log.Warn("ONNX Runtime may print plain-text lines on standard error", zap.Error(err))
		}
	}
	return qamodel.Open(o.Model, qamodel.Options{Mecab: modeldir.FlagOptions(o.MecabLib, o.MecabDicdir), Cache: o.ModelCache, Revision: o.Revision, Graph: graph}, maxSeqLen, log)
}

// questionsFit refuses a question that leaves no room for any context in
// a window: every document would get an error record for it.
func questionsFit(tok *tokenizer.Tokenizer, questions []string, s qa.Settings) error {
	for _, q := range questions {
		n := tok.Encode(q).Len()
		if err := qa.QuestionFits(n, tok.Template().Added(), s); err != nil {
			return fmt.Errorf("%w: --question %q is %d tokens, and with the %d special tokens of a window it leaves no room for the context in --max-seq-len %d: shorten the question or raise --max-seq-len (%w)",
				cli.ErrUsage, shorten(q), n, tok.Template().Added(), s.MaxSeqLen, err)
		}
	}
	return nil
}

// shorten is a question as a message quotes it: at most 80 characters.
func shorten(q string) string {
	if r := []rune(q); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return q
}

// startFleet opens a replica per device session; ranks is the job's world
// size (CPU ranks on one node share its cores).
func startFleet(ctx context.Context, o *Options, simulate fleet.Simulator, m *qamodel.Model, ranks int, log *zap.Logger) (*fleet.Fleet, error) {
	fl, err := StartFleet(ctx, Replicas{Devices: o.DeviceOptions, Pipeline: o.PipelineOptions, MaxSeqLen: o.Settings.MaxSeqLen, Ranks: ranks, Simulate: simulate, Log: log}, m.Graph)
	if err = stoppedEarly(ctx, err); err != nil {
		return nil, err
	}
	return fl, nil
}

// fingerprintRun is what the answers depend on, so --resume refuses another
// run's outputs. A run to standard output keeps no journal: none.
func fingerprintRun(o *Options, m *qamodel.Model, in *inputs, questions []string) (fingerprint.Fingerprint, error) {
	if o.Output == "-" {
		return fingerprint.Fingerprint{}, nil
	}
	files, stdin := in.plan.Identity()
	r := fingerprint.Run{Stdin: stdin, Files: files, Split: in.plan.Rank.World > 1, Model: m.Graph.Dir, Graph: m.Graph.ONNXPath,
		Settings: o.AnswerSettings(in.record.Schema).Keyed(), Questions: questions}
	if r.Split {
		r.Block = &in.plan.Block
	}
	return fingerprint.Of(r)
}

// openOutputs opens the answers (and logits) where a resumed run ends, or
// new ones, with the kept fields and top-k answers of every record.
func openOutputs(o OutputOptions, keep []string, topK int, in *inputs, fp fingerprint.Fingerprint) (*output.Outputs, error) {
	return output.Open(output.Options{Answers: o.Output, Logits: o.Logits, Resume: o.Resume, Overwrite: o.Overwrite, Fingerprint: fp,
		Keep: keep, Schema: in.record.Schema, TopK: topK})
}

// openSource opens the input where the outputs end and starts counting
// its documents until countCtx ends (the total appears on the bar when
// counted; the first batch does not wait).
func openSource(countCtx context.Context, in *inputs, out *output.Outputs) (*input.Reader, error) {
	src, err := in.plan.Open(in.record, out.Input, out.Skip)
	if err != nil {
		return nil, err
	}
	out.SetInput(src.At)
	go src.CountDocs(countCtx)
	return src, nil
}

// schedulerConfig is the run's options as the scheduler takes them.
func schedulerConfig(o *Options, m *qamodel.Model, tn *tune.Tuner, fl *fleet.Fleet, out *output.Outputs, src *input.Reader, in *inputs,
	stop <-chan struct{}, log *zap.Logger) scheduler.Config {
	cfg := SchedulerConfig(o.Settings, m.Tok, o.Provider, tn.MaxBudget(), m.Graph)
	cfg.Logger = log
	cfg.Faults = scheduler.Faults{BatchTimeout: o.BatchTimeout, Health: fl.Health}
	cfg.Checkpoints = scheduler.Checkpoints{
		Stop: stop, SkipBelow: out.Skip, Checkpoint: src.Guard(out.Checkpoint), CheckpointInterval: o.CheckpointInterval,
	}
	cfg.Reporting = scheduler.Reporting{
		Total: in.plan.Rows(), DocsTotal: src.Docs, TotalBytes: src.Bytes(), DoneBytes: src.DoneBytes(),
		ProgressInterval: o.ProgressInterval, Status: fl.Status,
	}
	cfg.Batching.Shaper, cfg.Batching.TokenizeWorkers, cfg.Batching.InputIdle = tn, o.TokenizeWorkers, in.paused
	cfg.Batching.MaxInFlightBytes, cfg.Batching.MaxWindowsPerDoc = int64(o.MaxInflightMB)<<20, o.MaxWindowsPerDoc
	if bar := logs.Bar(o.LogFormat); bar != nil {
		cfg.ProgressBar = bar // a nil *logs.Status would be a non-nil interface
	}
	return cfg
}

// logStart says what is about to run.
func logStart(log *zap.Logger, o *Options, m *qamodel.Model, fl *fleet.Fleet, in *inputs, src *input.Reader, out *output.Outputs, questions int) {
	running, plans := fl.Starting()
	graph := "as exported"
	if m.Built {
		graph = "built: " + m.BuiltAs.String()
	}
	log.Info("starting", zap.String("model", o.Model), zap.String("graph", graph), zap.String("onnxruntime", worker.Version()),
		zap.Int("replicas", len(running)), zap.Strings("running", running), zap.Strings("shape", plans), zap.Int("questions", questions), zap.Int("input_files", len(in.plan.Files)),
		zap.Int64("input_bytes", src.Bytes()), zap.Int64("resuming_at", out.Skip), zap.Bool("token_type_ids", m.Graph.TokenTypeIDs != ""),
		zap.String("logits", m.Graph.LogitsTypeName()))
	if m.Graph.QuantizedActivations {
		log.Info("the model quantizes activations at run time (dynamic int8): every batch is one unpadded window, so answers do not depend on timing (--max-batch-tokens does not apply)")
		quantize.WarnPrecise(log, m.Graph, isa.Detect())
	}
}

// startMetrics serves or writes the run's metrics (--metrics-addr,
// --metrics-textfile, a rank's own file) and observes the scheduler;
// journal is the file whose time is the last checkpoint's. A refusal (a
// port in use, a textfile folder that cannot be written) stops what it
// started.
func startMetrics(ctx context.Context, o *Options, build string, rank shard.Rank, fl *fleet.Fleet, journal string, cfg *scheduler.Config, log *zap.Logger) (func(), error) {
	names := make([]string, len(fl.Replicas))
	for i, r := range fl.Replicas {
		names[i] = r.Name()
	}
	obs, stop, err := metrics.Start(ctx, metrics.Options{Addr: o.MetricsAddr, Textfile: shard.Path(o.MetricsTextfile, rank),
		Interval: o.MetricsInterval, Output: o.Output, Rank: rank.Rank, GPU: fl.Samples, Log: log, Journal: journal, Replicas: names,
		Info: metrics.Info{Version: build, Model: o.Model, ONNXRuntime: worker.Version(), Devices: fl.Devices()}})
	if err != nil {
		stop()
		return nil, err
	}
	cfg.Observer = obs
	return stop, nil
}

// runScheduler answers every document of src on the fleet's replicas into
// the outputs, then checks that the input was the same to its end.
func runScheduler(ctx context.Context, stop <-chan struct{}, cfg scheduler.Config, src *input.Reader, m *qamodel.Model, fl *fleet.Fleet, out *output.Outputs) (scheduler.Summary, error) {
	var lg scheduler.LogitsSink
	if out.Logits != nil {
		lg = out.Logits
	}
	source, answers, replicas := hooked(ctx, stop, out, src, out.Answers, fl.Replicas)
	sum, err := scheduler.Run(ctx, cfg, source, m.Tok, replicas, answers, lg)
	if err == nil {
		err = src.Check() // the input was the same to its end
	}
	return sum, err
}

// claim checks that the outputs can be written and locks them for the
// life of the run (see output.Claim), so a second run on the same files
// stops here, before any model is loaded.
func claim(o OutputOptions) (filelock.Set, error) {
	locks, err := output.Claim(o.Output, o.Logits, strings.Join(os.Args, " "), !o.NoLock)
	if errors.Is(err, filelock.ErrUnsupported) {
		return nil, fmt.Errorf("%w; or, making sure yourself that no other run writes these outputs, add --no-lock", err)
	}
	return locks, err
}
