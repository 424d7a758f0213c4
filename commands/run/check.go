package run

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"qa-shard/gpu"
	"qa-shard/internal/cli"
	"qa-shard/internal/format"
	"qa-shard/metrics"
	"qa-shard/scheduler"
)

// Check refuses settings no run can use, before anything is opened.
func (o *options) Check() error {
	if o.Model == "" {
		return fmt.Errorf("%w: --model DIR is required: a folder exported by `optimum-cli export onnx --task question-answering` (the demo: make demo)", cli.ErrUsage)
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
	if o.IDType != "auto" && o.IDType != "string" && o.IDType != "integer" {
		return fmt.Errorf("%w: --id-type %q: use auto, string or integer", cli.ErrUsage, o.IDType)
	}
	if err := checkKeep(o.Fields.Keep); err != nil {
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

// checkKeep refuses kept fields that would clash with a record's own keys.
func checkKeep(keep []string) error {
	own := []string{"id", "question", "answer", "score", "start", "end", "windows", "answers", "file", "offset", "row", "error"}
	for i, k := range keep {
		switch {
		case k == "":
			return fmt.Errorf("%w: --keep-fields has an empty name", cli.ErrUsage)
		case slices.Contains(own, k):
			return fmt.Errorf("%w: --keep-fields %s: the output records have a %q of their own (%s)", cli.ErrUsage, k, k, strings.Join(own, ", "))
		case slices.Contains(keep[:i], k):
			return fmt.Errorf("%w: --keep-fields names %s twice", cli.ErrUsage, k)
		}
	}
	return nil
}

// Warnings are settings a run can use but that are likely mistakes, one
// sentence each, said once at the start.
func (o deviceOptions) Warnings() []string {
	var w []string
	if n := gpu.CPUSessions(o.Devices); n > runtime.NumCPU() {
		w = append(w, fmt.Sprintf("--devices cpu:%d starts %d sessions on %d cores: they share the cores, which is slower than one session per core (--devices cpu measures the best layout)", n, n, runtime.NumCPU()))
	}
	return w
}
