package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"qa-shard/journal"
	"qa-shard/logits"
	"qa-shard/shard"
)

// outputs are the answers file, the logits directory and the journal that
// makes them resumable. Records go to the final path directly; the journal
// says how much of it is complete, so a killed run is resumed, not
// restarted, and an unfinished file is never mistaken for a finished one.
type outputs struct {
	path     string
	file     *os.File // nil for standard output
	counter  *countingWriter
	buf      *bufio.Writer
	answers  *shard.Writer
	logits   *logits.Parts
	journal  *journal.Journal
	skip     int64 // documents already in the output (resume)
	complete bool  // a resumed run that had already finished
}

// openOutputs starts fresh outputs, or with --resume continues them.
func openOutputs(o *options, fp journal.Fingerprint) (*outputs, error) {
	if o.output == "-" {
		if o.resume {
			return nil, fmt.Errorf("%w: --resume needs --output FILE: standard output cannot be continued", errUsage)
		}
		out := &outputs{path: "-", buf: bufio.NewWriterSize(os.Stdout, 1<<20)}
		out.answers = shard.NewWriter(out.buf)
		return out, out.openLogits(o.logits, 0)
	}
	if o.resume {
		j, st, err := journal.Open(o.output, fp)
		switch {
		case errors.Is(err, journal.ErrNoJournal):
			if _, statErr := os.Stat(o.output); statErr == nil {
				return nil, fmt.Errorf("%w: %s exists but has no journal, so it cannot be resumed: add --overwrite to start over", errUsage, o.output)
			}
			return fresh(o, fp) // nothing to resume: a requeued job's first start
		case err != nil:
			return nil, fmt.Errorf("%w: cannot resume: %v", errUsage, err)
		case st.Complete:
			return &outputs{path: o.output, complete: true, skip: st.Done}, nil
		}
		f, err := os.OpenFile(o.output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening %s to resume: %w", o.output, err)
		}
		out := newFileOutputs(o.output, f, st.Bytes)
		out.journal, out.skip = j, st.Done
		return out, out.openLogits(o.logits, st.LogitsParts)
	}
	return fresh(o, fp)
}

func fresh(o *options, fp journal.Fingerprint) (*outputs, error) {
	if o.overwrite {
		if err := journal.Remove(o.output); err != nil {
			return nil, fmt.Errorf("--overwrite: %w", err)
		}
	} else if err := journal.CheckFresh(o.output, journal.Path(o.output), o.logits); err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	j, err := journal.Create(o.output, fp)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	f, err := os.Create(o.output)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot create --output: %v", errUsage, err)
	}
	out := newFileOutputs(o.output, f, 0)
	out.journal = j
	return out, out.openLogits(o.logits, 0)
}

func newFileOutputs(path string, f *os.File, base int64) *outputs {
	c := &countingWriter{w: f, n: base}
	out := &outputs{path: path, file: f, counter: c, buf: bufio.NewWriterSize(c, 1<<20)}
	out.answers = shard.NewWriter(out.buf)
	return out
}

func (o *outputs) openLogits(dir string, keep int) error {
	if dir == "" {
		return nil
	}
	p, err := logits.OpenParts(dir, keep)
	if err != nil {
		return fmt.Errorf("%w: --logits: %v", errUsage, err)
	}
	o.logits = p
	return nil
}

// checkpoint makes the first next documents durable and records that.
// It runs on the scheduler's writer goroutine, or after Run returned.
func (o *outputs) checkpoint(next int64) error {
	return o.sync(next, false)
}

// finish is the last checkpoint of a complete run.
func (o *outputs) finish(next int64) error {
	return o.sync(next, true)
}

func (o *outputs) sync(next int64, done bool) error {
	if err := errors.Join(o.answers.Flush(), o.buf.Flush()); err != nil {
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	parts := 0
	if o.logits != nil {
		n, err := o.logits.Seal()
		if err != nil {
			return err
		}
		parts = n
	}
	if o.journal == nil {
		return nil
	}
	if done {
		return o.journal.Finish(o.file, next, o.counter.n, parts)
	}
	return o.journal.Checkpoint(o.file, next, o.counter.n, parts)
}

// close releases the files; what was not checkpointed is redone on resume.
func (o *outputs) close() {
	if o.logits != nil {
		o.logits.Abort()
	}
	if o.file != nil {
		o.file.Close()
	}
}

// countingWriter knows the answers file's length without asking the OS.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
