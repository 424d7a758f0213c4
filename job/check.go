package job

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"qa-shard/gpu"
	"qa-shard/internal/cli"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
	"qa-shard/metrics"
	"qa-shard/scheduler"
)

// Check refuses settings no run can use, before anything is opened.
func (o *Options) Check() error {
	if o.Model == "" {
		return fmt.Errorf("%w: --model is required: a question-answering checkpoint folder (config.json with model.safetensors or pytorch_model.bin), a Hugging Face Hub id such as deepset/roberta-base-squad2, or an ONNX export", cli.ErrUsage)
	}
	if len(o.Inputs) == 0 {
		return fmt.Errorf("%w: --input is required: JSONL (.jsonl, .jsonl.gz, .jsonl.zst) or Parquet files, folders or globs, with one {\"id\", \"context\"} record per line or row", cli.ErrUsage)
	}
	for _, q := range o.Questions {
		if strings.TrimSpace(q) == "" {
			return fmt.Errorf("%w: --question is empty: ask something (Hugging Face's pipeline refuses an empty question too)", cli.ErrUsage)
		}
	}
	if o.Output != "-" {
		if _, err := format.ForOutput(o.Output); err != nil {
			return fmt.Errorf("%w: --output %w", cli.ErrUsage, err)
		}
	}
	if o.Resume && o.Overwrite {
		return fmt.Errorf("%w: --resume and --overwrite ask for opposite things: --resume continues the run whose journal is beside --output, --overwrite deletes it and starts over; give one of them", cli.ErrUsage)
	}
	if o.Logits != "" && o.Output != "-" && samePath(o.Logits, o.Output) {
		return fmt.Errorf("%w: --logits %s is the --output path: the logits are a folder of their own beside the answers (say %s)", cli.ErrUsage, o.Logits, suggestLogits(o.Output))
	}
	if o.Resume && o.Output == "-" {
		return fmt.Errorf("%w: --resume needs --output FILE: a run to standard output keeps no journal and cannot be continued", cli.ErrUsage)
	}
	if err := o.Settings.Validate(); err != nil {
		return fmt.Errorf("%w: %w", cli.ErrUsage, err)
	}
	if o.MaxBatchTokens != 0 && o.MaxBatchTokens < 8 {
		return fmt.Errorf("%w: --max-batch-tokens must be at least 8 (or 0: measured)", cli.ErrUsage)
	}
	if !(o.TuneShare > 0 && o.TuneShare <= 100) {
		return fmt.Errorf("%w: --tune-share %v: give a percentage above 0, at most 100", cli.ErrUsage, o.TuneShare)
	}
	if o.MaxInflightMB < 1 {
		return fmt.Errorf("%w: --max-inflight-mb must be at least 1", cli.ErrUsage)
	}
	if o.FP16 {
		o.Precision = "fp16"
	}
	if o.Precision != "fp32" && o.Precision != "fp16" {
		return fmt.Errorf("%w: --precision %q: use fp32, or fp16 on CUDA GPUs (int8 on the CPU is a model of its own: qa-shard quantize)", cli.ErrUsage, o.Precision)
	}
	if o.Graph != "auto" && o.Graph != "fused" && o.Graph != "standard" {
		return fmt.Errorf("%w: --graph %q: use auto, fused or standard", cli.ErrUsage, o.Graph)
	}
	if o.IDType != "auto" && o.IDType != "string" && o.IDType != "integer" {
		return fmt.Errorf("%w: --id-type %q: use auto, string or integer", cli.ErrUsage, o.IDType)
	}
	if f := o.Fields.Names(); o.Fields.Settings != "" && slices.Contains([]string{f.ID, f.Context, f.Question, "question", "questions"}, o.Fields.Settings) {
		return fmt.Errorf("%w: --settings-field %s names a field the records already use for their id, context or questions: name the field holding each record's settings object (say settings)", cli.ErrUsage, o.Fields.Settings)
	}
	if o.Fields.Settings != "" && o.Output != "-" {
		if f, err := format.ForOutput(o.Output); err == nil && f == format.Parquet {
			return fmt.Errorf("%w: --settings-field %s with Parquet --output %s: a record's own top_k changes the answer columns, which a Parquet file fixes for the run; write JSONL (--output ending .jsonl, .jsonl.gz or .jsonl.zst), or give the settings as flags", cli.ErrUsage, o.Fields.Settings, o.Output)
		}
	}
	o.Fields.Keep = trimNames(o.Fields.Keep)
	if err := checkKeep(o.Fields.Keep); err != nil {
		return err
	}
	if err := o.checkLimits(); err != nil {
		return err
	}
	if _, err := scheduler.ParseErrorLimit(o.MaxErrors); err != nil {
		return fmt.Errorf("%w: --max-errors %w", cli.ErrUsage, err)
	}
	if err := metrics.CheckTextfile(o.MetricsTextfile); err != nil {
		return err
	}
	if o.MaxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line-bytes must be at least 1024", cli.ErrUsage)
	}
	if o.MaxWindowsPerDoc < 0 {
		return fmt.Errorf("%w: --max-windows-per-doc must be 0 (no limit) or more", cli.ErrUsage)
	}
	return nil
}

// checkLimits refuses counts and durations that cannot mean anything:
// a negative thread count, a checkpoint never or always, a progress line
// more often than a person reads one.
func (o *Options) checkLimits() error {
	for _, d := range []struct {
		flag     string
		v, least time.Duration
		why      string
	}{
		{"checkpoint-interval", o.CheckpointInterval, time.Millisecond, "how often written records are made durable"},
		{"progress-interval", o.ProgressInterval, time.Second, "a progress line more often than once a second is unreadable"},
		{"metrics-interval", o.MetricsInterval, time.Second, "how often --metrics-textfile is rewritten"},
		{"gpu-sample-interval", o.GPUSampleInterval, time.Millisecond, "how often GPUs are sampled"},
		{"drain-timeout", o.DrainTimeout, 0, "0 stops at once after SIGUSR1"},
	} {
		if d.v < d.least {
			return fmt.Errorf("%w: --%s %v: give at least %v (%s)", cli.ErrUsage, d.flag, d.v, d.least, d.why)
		}
	}
	if o.BatchTimeout < 0 {
		return fmt.Errorf("%w: --batch-timeout %v: give a duration, or 0 for ten times the slowest batch seen", cli.ErrUsage, o.BatchTimeout)
	}
	for _, n := range []struct {
		flag     string
		v, least int
		what     string
	}{
		{"threads", o.Threads, 0, "0 divides the cores among the sessions"},
		{"replicas-per-device", o.ReplicasPerDevice, 0, "0 measures it"},
		{"tokenize-workers", o.TokenizeWorkers, 1, "goroutines tokenizing documents"},
	} {
		if n.v < n.least {
			return fmt.Errorf("%w: --%s %d: give %d or more (%s)", cli.ErrUsage, n.flag, n.v, n.least, n.what)
		}
	}
	if !(o.GPUMemFraction >= 0 && o.GPUMemFraction <= 1) {
		return fmt.Errorf("%w: --gpu-mem-fraction %v: give a fraction of each GPU's memory, above 0 and at most 1 (0: no limit)", cli.ErrUsage, o.GPUMemFraction)
	}
	return nil
}

// trimNames drops the spaces around comma-separated names ("url, lang"
// keeps "lang").
func trimNames(names []string) []string {
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// samePath reports whether a and b name one file (after cleaning, made
// absolute).
func samePath(a, b string) bool {
	pa, errA := filepath.Abs(a)
	pb, errB := filepath.Abs(b)
	return errA == nil && errB == nil && pa == pb
}

// suggestLogits is a logits folder beside an answers path.
func suggestLogits(output string) string {
	base := strings.TrimSuffix(output, filepath.Ext(output))
	base = strings.TrimSuffix(base, ".jsonl")
	return base + ".logits"
}

// checkKeep refuses kept fields that would clash with a record's own
// columns (record.Reserved: the answer, error and logits columns), empty
// names and names given twice.
func checkKeep(keep []string) error {
	for i, k := range keep {
		switch {
		case k == "":
			return fmt.Errorf("%w: --keep-fields has an empty name", cli.ErrUsage)
		case record.Reserved(k):
			return fmt.Errorf("%w: --keep-fields %s: the output records have a column %q of their own (their columns: %s); a kept field cannot take its name", cli.ErrUsage, k, k, strings.Join(record.ReservedColumns(), ", "))
		case slices.Contains(keep[:i], k):
			return fmt.Errorf("%w: --keep-fields names %s twice", cli.ErrUsage, k)
		}
	}
	return nil
}

// Warnings are settings a run can use but that are likely mistakes, one
// sentence each, said once at the start.
func (o DeviceOptions) Warnings() []string {
	var w []string
	if n := gpu.CPUSessions(o.Devices); n > runtime.NumCPU() {
		w = append(w, fmt.Sprintf("--devices cpu:%d starts %d sessions on %d cores: they share the cores, which is slower than one session per core (--devices cpu measures the best layout)", n, n, runtime.NumCPU()))
	}
	return w
}
