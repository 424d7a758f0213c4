package job

// A run's outcome: what ends the run makes what was written durable
// whatever happened, and says what the outcome means as an error of its
// kind (package errkind), worded for the person who reruns it: nil when
// the run is complete, Resumable when it was interrupted or its storage
// failed (exit 75), Records when it completed with more error records than
// it tolerates (3), or the error that stopped it.

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"qa-shard/input"
	"qa-shard/internal/errkind"
	"qa-shard/internal/logs"
	"qa-shard/internal/pin"
	"qa-shard/internal/signals"
	"qa-shard/internal/words"
	"qa-shard/output"
	"qa-shard/scheduler"
)

// runEnd is what the outcome's words need of the run: plain values of its
// options, and how its summary is printed.
type runEnd struct {
	Model     string // --model
	Output    string // --output (this rank's)
	MaxErrors string // --max-errors, as given
	// Report prints what the run did (the summary); finish calls it once
	// what was saved is known, unless the outputs changed under the run
	// or could not be saved.
	Report func(scheduler.Summary)
}

// finish makes what was written durable whatever happened, and says what
// the outcome means: nil (complete), an error marked errkind.Records (exit
// 3) or errkind.Resumable (an interruption, 75), an output.ErrStorage
// failure (75: free space, then resume), or the error that stopped the
// run.
//
// A stop by a signal comes as runErr, a *signals.Stopped (cause); total
// is the number of documents of this process, 0 when unknown.
func finish(r runEnd, out *output.Outputs, log *zap.Logger, sum scheduler.Summary, runErr error, total int64) error {
	if runErr != nil && !isStop(runErr) {
		if cerr := out.Check(); cerr != nil {
			// An output changed from outside caused the failure (a
			// logits part cannot be created in a removed folder): say so.
			runErr = errors.Join(cerr, runErr)
		}
	}
	var saveErr error
	switch {
	case runErr == nil && !sum.Interrupted && !isStop(runErr):
		saveErr = out.Finish(sum.Next)
	case !errors.Is(runErr, scheduler.ErrWrite) && !errors.Is(runErr, input.ErrChanged) && !errors.Is(runErr, input.ErrGrew) && !errors.Is(runErr, pin.ErrChanged) && !errors.Is(runErr, output.ErrReaderGone):
		// Every document handed to the output is whole: keep them. After
		// a failed write the last one may be partial, after an input
		// file changed the documents since the last checkpoint may be of
		// either text (after one grew, the last line read may have been
		// half written), and after an output changed from outside they are
		// not where they were written: the journal keeps its last
		// checkpoint.
		saveErr = out.Checkpoint(sum.Next)
	}
	saved := sum.Next
	if out.Journal() != "" {
		saved = out.Saved()
	}
	resume, saves := fmt.Sprintf("rerun the same command with --resume to continue from document %d", saved), "saved; rerun the same command with --resume"
	if out.Journal() == "" {
		// Standard output keeps no journal: nothing to resume.
		resume = "a run to standard output cannot be resumed: rerun the same command to start over"
		saves = "written to standard output; " + resume
	}
	if fault := storageFault(runErr, saveErr); fault != nil {
		r.Report(sum)
		return fmt.Errorf("%w; %d documents are saved (%s vouches for them): free space or repair the storage, then %s", fault, saved, out.Journal(), resume)
	}
	if errors.Is(saveErr, pin.ErrChanged) {
		// The last save found it: the run's outcome, not a second failure.
		runErr, saveErr = errors.Join(saveErr, runErr), nil
	}
	if errors.Is(runErr, output.ErrReaderGone) {
		return fmt.Errorf("stopped: %w; %s were written to it, and nothing more is: %s", runErr, documents(sum.Next, total), resume)
	}
	if errors.Is(runErr, pin.ErrChanged) && !errors.Is(runErr, input.ErrChanged) { // an output's
		return fmt.Errorf("run stopped; %d documents are saved by the journal: %w", saved, runErr)
	}
	if saveErr != nil {
		return fmt.Errorf("saving the output after %d documents: %w", sum.Next, errors.Join(saveErr, runErr))
	}
	r.Report(sum)
	whole := sum.Whole(out.Counts())
	var stop *signals.Stopped
	switch {
	case errors.As(runErr, &stop):
		return errkind.Mark(errkind.Resumable, fmt.Errorf("%w; %s %s", stop, documents(saved, total), saves))
	case runErr == nil && sum.Interrupted:
		return errkind.Mark(errkind.Resumable, fmt.Errorf("interrupted; %s %s", documents(saved, total), saves))
	case errors.Is(runErr, input.ErrChanged), errors.Is(runErr, input.ErrGrew):
		return fmt.Errorf("run stopped after %d saved documents: %w", saved, runErr)
	case errors.Is(runErr, scheduler.ErrNonFiniteModel):
		return fmt.Errorf("the model %s is refused: %w; no answer was written from it: fix or re-export the model (a float16 export that overflows, say), then rerun with --overwrite", r.Model, runErr)
	case errors.Is(runErr, scheduler.ErrAllReplicasFailed), errors.Is(runErr, context.Canceled):
		return errkind.Mark(errkind.Resumable, fmt.Errorf("stopped: %w; %d documents are saved: %s", runErr, saved, resume))
	case runErr != nil:
		return fmt.Errorf("run stopped after %d documents: %w (they are saved: %s)", saved, runErr, resume)
	}
	return judge(r, log, whole)
}

// cause is what ended the run as Finish reads it: a stop by a
// signal becomes its *signals.Stopped (the cancellation it caused is no
// failure), a SIGUSR1 drain that ended early too; anything else is runErr.
func cause(ctx context.Context, h *signals.Handler, sum scheduler.Summary, runErr error) error {
	if !errors.Is(runErr, context.Canceled) && (runErr != nil || !sum.Interrupted) {
		return runErr
	}
	var stop *signals.Stopped
	switch {
	case errors.As(context.Cause(ctx), &stop):
		return stop
	case h.Stopped() != nil:
		return h.Stopped()
	}
	return runErr
}

func isStop(err error) bool {
	var stop *signals.Stopped
	return errors.As(err, &stop)
}

// stoppedEarly is err, or the stop by a signal that came while the model
// loaded (nothing was written yet): resumable, rerun the same command.
func stoppedEarly(ctx context.Context, err error) error {
	var stop *signals.Stopped
	if !errors.As(context.Cause(ctx), &stop) {
		return err
	}
	return errkind.Mark(errkind.Resumable, fmt.Errorf("%w while the model loaded; nothing was written: rerun the same command", stop))
}

// documents says how many documents are saved, of how many when known:
// "458 of 2,000 documents".
func documents(saved, total int64) string {
	if total > 0 {
		return fmt.Sprintf("%s of %s documents", logs.Thousands(saved), logs.Thousands(total))
	}
	if saved == 1 {
		return "1 document"
	}
	return logs.Thousands(saved) + " documents"
}

// judge is the outcome of a complete output from its error records, the
// whole output's (before a --resume too): nil, or an error of kind
// errkind.Records past --max-errors.
func judge(r runEnd, log *zap.Logger, whole scheduler.Summary) error {
	if whole.RecordErrors == 0 {
		return nil
	}
	msg := fmt.Sprintf("completed with %s (lines or questions that could not be answered; each says why) in %s", words.Count(whole.RecordErrors, "error record", "error records"), r.Output)
	if limit, _ := scheduler.ParseErrorLimit(r.MaxErrors); limit.Allows(whole) {
		log.Warn(msg+"; within --max-errors "+r.MaxErrors+", so the exit code is 0", zap.Int64("record_errors", whole.RecordErrors))
		return nil
	}
	return errkind.Mark(errkind.Records, fmt.Errorf("%s: more than --max-errors %s tolerates", msg, r.MaxErrors))
}

// storageFault is the failure of the outputs' storage (marked
// output.ErrStorage) that stopped the run or its last save, or nil. An
// input that cannot be read is not one: only the outputs' own errors
// (marked by package output, or a failed write of the records) count.
func storageFault(runErr, saveErr error) error {
	switch {
	case errors.Is(runErr, output.ErrStorage):
		return runErr
	case errors.Is(runErr, scheduler.ErrWrite) && errors.Is(output.Fault(runErr), output.ErrStorage):
		return output.Fault(runErr)
	case errors.Is(output.Fault(saveErr), output.ErrStorage):
		return output.Fault(saveErr)
	}
	return nil
}
