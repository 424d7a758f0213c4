package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/output"
	"qa-shard/scheduler"
)

// The end of a run: what is saved, what the operator reads, and the exit
// code the outcome means. Every line a run prints after the pipeline
// stops is written here.

// finish makes what was written durable whatever happened, and says what
// the outcome means: nil (complete), an *exitError for record errors (3) or
// an interruption (75), an output.ErrStorage failure (75: free space, then
// resume), or the error that stopped the run.
func finish(o *options, out *output.Outputs, fl *fleet.Fleet, log *zap.Logger, sum scheduler.Summary, runErr error) error {
	var saveErr error
	switch {
	case runErr == nil && !sum.Interrupted:
		saveErr = out.Finish(sum.Next)
	case !errors.Is(runErr, scheduler.ErrWrite):
		// Every document handed to the output is whole: keep them. After
		// a failed write the last one may be partial, and the journal
		// keeps its last checkpoint.
		saveErr = out.Checkpoint(sum.Next)
	}
	saved := sum.Next
	if out.Journal() != "" {
		saved = out.Saved()
	}
	resume := fmt.Sprintf("rerun the same command with --resume to continue from document %d", saved)
	if fault := storageFault(runErr, saveErr); fault != nil {
		report(log, o, sum, fl)
		return fmt.Errorf("%w; %d documents are saved (%s vouches for them): free space or repair the storage, then %s", fault, saved, out.Journal(), resume)
	}
	if saveErr != nil {
		return fmt.Errorf("saving the output after %d documents: %w", sum.Next, errors.Join(saveErr, runErr))
	}
	report(log, o, sum, fl)
	switch {
	case runErr == nil && sum.Interrupted:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted; %d documents are saved: %s", saved, resume)}
	case errors.Is(runErr, scheduler.ErrAllReplicasFailed), errors.Is(runErr, context.Canceled):
		return &exitError{exitInterrupted, fmt.Errorf("stopped: %w; %d documents are saved: %s", runErr, saved, resume)}
	case runErr != nil:
		return fmt.Errorf("run stopped after %d documents: %w (they are saved: %s)", saved, runErr, resume)
	case sum.RecordErrors > 0:
		return &exitError{exitRecords, fmt.Errorf("completed with %d error records (lines or questions that could not be answered; each says why) in %s", sum.RecordErrors, o.output)}
	}
	return nil
}

// storageFault is the first of errs the storage caused (marked
// output.ErrStorage), or nil.
func storageFault(errs ...error) error {
	for _, err := range errs {
		if f := output.Fault(err); errors.Is(f, output.ErrStorage) {
			return f
		}
	}
	return nil
}

// reportComplete tells a resumed run that there is nothing left to do.
func reportComplete(path string, docs int64) {
	fmt.Fprintf(os.Stderr, "qa-shard: %s is already complete (%d documents); nothing to resume\n", path, docs)
}

// report logs the summary and prints it for a person.
func report(log *zap.Logger, o *options, s scheduler.Summary, fl *fleet.Fleet) {
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
	if fl.Summary != nil {
		for _, x := range fl.Summary() {
			log.Info("gpu summary", zap.String("gpu", x.String()))
			fmt.Fprintf(w, "  %s\n", x.String())
		}
	}
}
