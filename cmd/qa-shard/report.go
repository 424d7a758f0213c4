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
// an interruption (75), or the error that stopped the run.
func finish(o *options, out *output.Outputs, fl *fleet.Fleet, log *zap.Logger, sum scheduler.Summary, runErr error) error {
	complete := runErr == nil && !sum.Interrupted
	var err error
	if complete {
		err = out.Finish(sum.Next)
	} else {
		err = out.Checkpoint(sum.Next)
	}
	if err != nil {
		return fmt.Errorf("saving the output after %d documents: %w", sum.Next, errors.Join(err, runErr))
	}
	report(log, o, sum, fl)
	resume := fmt.Sprintf("rerun the same command with --resume to continue from document %d", sum.Next)
	switch {
	case runErr == nil && sum.Interrupted:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted; %d documents are saved: %s", sum.Next, resume)}
	case errors.Is(runErr, scheduler.ErrAllReplicasFailed), errors.Is(runErr, context.Canceled):
		return &exitError{exitInterrupted, fmt.Errorf("stopped: %w; %d documents are saved: %s", runErr, sum.Next, resume)}
	case runErr != nil:
		return fmt.Errorf("run stopped after %d documents: %w (they are saved: %s)", sum.Next, runErr, resume)
	case sum.RecordErrors > 0:
		return &exitError{exitRecords, fmt.Errorf("completed with %d error records (lines or questions that could not be answered; each says why) in %s", sum.RecordErrors, o.output)}
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
	for _, ch := range fl.Choices() {
		log.Info("batch shape", zap.String("class", ch.Class), zap.String("choice", ch.String()))
		fmt.Fprintf(w, "  batch shape    %s\n", ch)
	}
	if fl.Summary != nil {
		for _, x := range fl.Summary() {
			log.Info("gpu summary", zap.String("gpu", x.String()))
			fmt.Fprintf(w, "  %s\n", x.String())
		}
	}
}
