// Package output owns a run's output files: the answers file, the logits
// folder and the journal that makes them resumable.
package output

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

// Options name the outputs of a run and how to treat existing ones.
type Options struct {
	Answers   string // the answers file; "-" for standard output
	Logits    string // the logits folder; "" for none
	Resume    bool   // continue from the journal beside Answers
	Overwrite bool   // replace existing outputs
	// Fingerprint identifies what the answers depend on; a resumed run
	// must have the journal's.
	Fingerprint journal.Fingerprint
}

// Outputs are the answers file, the logits directory and the journal that
// makes them resumable. Records go to the final path directly; the journal
// says how much of it is complete, so a killed run is resumed, not
// restarted, and an unfinished file is never mistaken for a finished one.
type Outputs struct {
	Answers  *shard.Writer
	Logits   *logits.Parts // nil without a logits folder
	Skip     int64         // documents already in the output (resume)
	Complete bool          // a resumed run that had already finished
	path     string
	file     *os.File // nil for standard output
	counter  *countingWriter
	buf      *bufio.Writer
	journal  *journal.Journal
}

// Open starts fresh outputs, or with Resume continues them.
func Open(o Options) (*Outputs, error) {
	if o.Answers == "-" {
		if o.Resume {
			return nil, fmt.Errorf("%w: --resume needs --output FILE: standard output cannot be continued", journal.ErrInvalid)
		}
		out := &Outputs{path: "-", buf: bufio.NewWriterSize(os.Stdout, 1<<20)}
		out.Answers = shard.NewWriter(out.buf)
		return out, out.openLogits(o.Logits, 0)
	}
	if o.Resume {
		j, st, err := journal.Open(o.Answers, o.Fingerprint)
		switch {
		case errors.Is(err, journal.ErrNoJournal):
			if _, statErr := os.Stat(o.Answers); statErr == nil {
				return nil, fmt.Errorf("%w: %s has no journal, so it cannot be resumed: add --overwrite to start over", journal.ErrExists, o.Answers)
			}
			return fresh(o) // nothing to resume: a requeued job's first start
		case err != nil:
			return nil, fmt.Errorf("cannot resume: %w", err)
		case st.Complete:
			return &Outputs{path: o.Answers, Complete: true, Skip: st.Done}, nil
		}
		f, err := os.OpenFile(o.Answers, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening %s to resume: %w", o.Answers, err)
		}
		out := newFileOutputs(o.Answers, f, st.Bytes)
		out.journal, out.Skip = j, st.Done
		return out, out.openLogits(o.Logits, st.LogitsParts)
	}
	return fresh(o)
}

func fresh(o Options) (*Outputs, error) {
	if o.Overwrite {
		if err := journal.Remove(o.Answers); err != nil {
			return nil, fmt.Errorf("--overwrite: %w", err)
		}
	} else if err := journal.CheckFresh(o.Answers, journal.Path(o.Answers), o.Logits); err != nil {
		return nil, err
	}
	j, err := journal.Create(o.Answers, o.Fingerprint)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(o.Answers)
	if err != nil {
		return nil, fmt.Errorf("cannot create --output: %w", err)
	}
	out := newFileOutputs(o.Answers, f, 0)
	out.journal = j
	return out, out.openLogits(o.Logits, 0)
}

func newFileOutputs(path string, f *os.File, base int64) *Outputs {
	c := &countingWriter{w: f, n: base}
	out := &Outputs{path: path, file: f, counter: c, buf: bufio.NewWriterSize(c, 1<<20)}
	out.Answers = shard.NewWriter(out.buf)
	return out
}

func (o *Outputs) openLogits(dir string, keep int) error {
	if dir == "" {
		return nil
	}
	p, err := logits.OpenParts(dir, keep)
	if err != nil {
		return fmt.Errorf("--logits: %w", err)
	}
	o.Logits = p
	return nil
}

// Checkpoint makes the first next documents durable and records that.
// It runs on the scheduler's writer goroutine, or after Run returned.
func (o *Outputs) Checkpoint(next int64) error {
	return o.sync(next, false)
}

// Finish is the last checkpoint of a complete run.
func (o *Outputs) Finish(next int64) error {
	return o.sync(next, true)
}

func (o *Outputs) sync(next int64, done bool) error {
	if err := errors.Join(o.Answers.Flush(), o.buf.Flush()); err != nil {
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	parts := 0
	if o.Logits != nil {
		n, err := o.Logits.Seal()
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

// Close releases the files; what was not checkpointed is redone on resume.
func (o *Outputs) Close() {
	if o.Logits != nil {
		o.Logits.Abort()
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
