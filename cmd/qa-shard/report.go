package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
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
		msg := fmt.Sprintf("completed with %d error records (lines or questions that could not be answered; each says why) in %s", sum.RecordErrors, o.output)
		if tol, _ := parseTolerance(o.maxErrors); tol.allows(sum.RecordErrors, sum.Pairs+sum.RecordErrors) {
			log.Warn(msg+"; within --max-errors "+o.maxErrors+", so the exit code is 0", zap.Int64("record_errors", sum.RecordErrors))
			return nil
		}
		return &exitError{exitRecords, fmt.Errorf("%s: more than --max-errors %s tolerates", msg, o.maxErrors)}
	}
	return nil
}

// reportComplete tells a resumed run that there is nothing left to do.
func reportComplete(log *zap.Logger, path string, docs int64) {
	log.Info(path+" is already complete; nothing to resume", zap.String("output", path), zap.Int64("documents", docs))
}

// report says what the run did: one "summary" object in JSON, a table for
// a person on a console.
func report(log *zap.Logger, o *options, s scheduler.Summary, fl *fleet.Fleet) {
	var gpus []string
	if fl.Summary != nil {
		for _, x := range fl.Summary() {
			gpus = append(gpus, x.String())
		}
	}
	if resolveFormat(o.logFormat) == "json" {
		fields := []zap.Field{zap.Int64("documents", s.Documents), zap.Float64("docs_per_s", s.DocsPerSecond()), zap.Int64("answers", s.Pairs),
			zap.Int64("windows", s.Windows), zap.Int64("batches", s.Batches), zap.Int64("tokens", s.Tokens), zap.Float64("padding_percent", s.PaddingPercent()),
			zap.Int64("record_errors", s.RecordErrors), zap.Duration("wall", s.Wall), zap.Any("windows_per_replica", s.ReplicaCounts),
			zap.String("output", o.output)}
		if o.logits != "" {
			fields = append(fields, zap.String("logits", o.logits))
		}
		if len(gpus) > 0 {
			fields = append(fields, zap.Strings("gpus", gpus))
		}
		log.Info("summary", fields...)
		return
	}
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
	for _, g := range gpus {
		fmt.Fprintf(w, "  %s\n", g)
	}
}

// tolerance is --max-errors: a count of error records, or a percentage of
// the records written.
type tolerance struct {
	count   int64
	percent float64 // used when isShare
	isShare bool
}

func parseTolerance(s string) (tolerance, error) {
	bad := fmt.Errorf("%w: --max-errors %q: give a count (10) or a percentage of the records (0.5%%)", errUsage, s)
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
			return tolerance{}, bad
		}
		return tolerance{percent: v, isShare: true}, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return tolerance{}, bad
	}
	return tolerance{count: n}, nil
}

// allows says whether errors error records among records are tolerated.
func (t tolerance) allows(errors, records int64) bool {
	if t.isShare {
		return records > 0 && 100*float64(errors) <= t.percent*float64(records)
	}
	return errors <= t.count
}
