package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/logs"
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
		msg := fmt.Sprintf("completed with %d error records (lines or questions that could not be answered; each says why) in %s", sum.RecordErrors, o.output)
		if limit, _ := scheduler.ParseErrorLimit(o.maxErrors); limit.Allows(sum) {
			log.Warn(msg+"; within --max-errors "+o.maxErrors+", so the exit code is 0", zap.Int64("record_errors", sum.RecordErrors))
			return nil
		}
		return &exitError{exitRecords, fmt.Errorf("%s: more than --max-errors %s tolerates", msg, o.maxErrors)}
	}
	return nil
}

// report says what the run did: one "summary" object in JSON, a table for
// a person on a console.
func report(log *zap.Logger, o *options, s scheduler.Summary, fl *fleet.Fleet) {
	var gpus, shapes []string
	for _, ch := range fl.Choices() {
		shapes = append(shapes, ch.String())
	}
	if fl.Summary != nil {
		for _, x := range fl.Summary() {
			gpus = append(gpus, x.String())
		}
	}
	if logs.Resolve(o.logFormat) == "json" {
		log.Info("summary", append(s.Fields(), zap.String("output", o.output), zap.String("logits", o.logits),
			zap.Strings("batch_shape", shapes), zap.Strings("gpus", gpus))...)
		return
	}
	files := []string{"answers file   " + o.output}
	if o.logits != "" {
		files = append(files, "logits file    "+o.logits)
	}
	for _, sh := range shapes {
		files = append(files, "batch shape    "+sh)
	}
	s.WriteTable(os.Stderr, append(files, gpus...)...)
}
