// Package output owns a run's output files: the answers (JSONL, gzip or
// zstd JSONL, or a folder of Parquet parts, by the extension of --output),
// the logits folder and the journal that makes them resumable.
//
// Checking the answers and parts against a journal (verify.go, saved.go)
// reads them here; package fingerprint compares what was read with what
// the journal recorded and words the difference.
package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/pin"
	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
	"qa-shard/journal"
	"qa-shard/output/logits"
)

// Options name the outputs of a run and how to treat existing ones.
type Options struct {
	Answers   string // the answers file (or folder, .parquet); "-" for standard output
	Logits    string // the logits folder; "" for none
	Resume    bool   // continue from the journal beside Answers
	Overwrite bool   // replace existing outputs
	// Fingerprint identifies what the answers depend on; a resumed run
	// must have the journal's.
	Fingerprint fingerprint.Fingerprint
	// Keep names the kept fields; Schema gives ids and kept fields their
	// types; TopK > 1 adds the answers list column to Parquet answers.
	Keep   []string
	Schema record.Schema
	TopK   int

	// openFile opens a JSONL answers file; tests inject faults through it.
	openFile func(name string, flag int) (file, error)
}

// file is what a JSONL answers stream needs of its file; *os.File is one.
type file interface {
	io.Writer
	Sync() error
	Close() error
}

func (o *Options) open(name string, flag int) (file, error) {
	if o.openFile != nil {
		return o.openFile(name, flag)
	}
	return os.OpenFile(name, flag, 0o644)
}

// Outputs are the answers, the logits directory and the journal that
// makes them resumable. Records go to the final path directly; the journal
// says how much of it is complete, so a killed run is resumed, not
// restarted, and an unfinished file is never mistaken for a finished one.
type Outputs struct {
	Answers  record.Sink
	Logits   *logits.Parts // nil without a logits folder
	Skip     int64         // documents already in the output (resume)
	Complete bool          // a resumed run that had already finished
	// Input is where the input continues (resume), what a complete run
	// read (Complete); nil for a fresh start.
	Input   *readstate.State
	path    string
	sink    sink
	count   *counter
	journal *journal.Journal
	at      func(next int64) readstate.State
	// logitsDir is the logits folder as the journal records it
	// (journal.State.Logits).
	logitsDir string
	// journalPin is the journal as last written (check).
	journalPin *pin.File
	// created: this process created the answers and journal (a fresh
	// run); logitsPath is the logits folder as given ("" for none),
	// logitsCreated whether the run created it. Discard reads them.
	created       bool
	logitsPath    string
	logitsCreated bool
	closed        bool // Close ran
	// failed is the first failure to write or save: after it no
	// checkpoint is made, so the journal keeps describing the output as
	// it was before (a failed write may have left part of a record, a
	// failed seal may have dropped logits rows).
	failed error
}

// sink is one answers format.
type sink interface {
	record.Sink
	// seal makes what was written one complete unit: flushed, a gzip
	// member or zstd frame ended, a Parquet part sealed.
	seal() error
	// size is the length of the answers file and the sealed parts.
	size() (bytes int64, parts int)
	// hashState is the answers file's digest state after size's bytes
	// ("" for none: see digest.go).
	hashState() string
	// digest chains the sealed parts (journal.State.AnswerDigest); "" for
	// a file.
	digest() string
	// syncer is what must reach the disk before the journal says so.
	syncer() journal.Syncer
	// check says what changed when the answers are no longer the files
	// written at their paths (see Outputs.check).
	check() error
	close()
}

// Open starts fresh outputs, or with Resume continues them.
func Open(o Options) (*Outputs, error) {
	if o.Answers == "-" {
		if o.Resume {
			return nil, fmt.Errorf("%w: --resume needs --output FILE: standard output cannot be continued", journal.ErrInvalid)
		}
		if err := freshLogits(o); err != nil {
			return nil, err
		}
		s := newStdout(o.Keep)
		out := &Outputs{path: "-", sink: s, count: &counter{Sink: s}}
		out.Answers = out.count
		return out, out.openLogits(o, journal.State{})
	}
	if o.Resume {
		j, st, err := journal.OpenChecked(o.Answers, o.Fingerprint, func(st journal.State) error { return verifyAnswers(o.Answers, st) })
		switch {
		case errors.Is(err, journal.ErrNoJournal):
			if err := Precheck(o); err != nil && !o.Overwrite {
				return nil, err
			}
			return fresh(o) // nothing to resume: a requeued job's first start
		case err != nil:
			return nil, denied(fmt.Errorf("cannot resume: %w", err))
		case st.Complete:
			return &Outputs{path: o.Answers, Complete: true, Skip: st.Done, Input: &st.Input, count: &counter{records: st.Records, errors: st.Errors}}, nil
		}
		s, err := openSink(o, st, false)
		if err != nil {
			return nil, Fault(denied(fmt.Errorf("opening %s to resume: %w", o.Answers, err)))
		}
		c := &counter{Sink: s, records: st.Records, errors: st.Errors}
		out := &Outputs{path: o.Answers, sink: s, Answers: c, count: c, journal: j, Skip: st.Done, Input: &st.Input}
		if err := out.pinJournal(); err != nil {
			return nil, err
		}
		return out, out.openLogits(o, st)
	}
	return fresh(o)
}

// freshLogits clears the way for a new run's logits: an existing folder
// is refused, or with --overwrite its parts are removed.
func freshLogits(o Options) error {
	if o.Overwrite {
		if err := notOurs("--logits", o.Logits); err != nil {
			return err
		}
		return logits.RemoveParts(o.Logits)
	}
	return journal.CheckFresh(o.Logits)
}

func fresh(o Options) (*Outputs, error) {
	if o.Overwrite {
		if err := errors.Join(notOursAnswers(o.Answers), notOurs("--logits", o.Logits)); err != nil {
			return nil, err
		}
		if err := remove(o.Answers); err != nil {
			return nil, fmt.Errorf("--overwrite: %w", err)
		}
	} else if err := journal.CheckFresh(o.Answers, journal.Path(o.Answers), o.Logits); err != nil {
		return nil, err
	}
	if err := freshLogits(o); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(o.Logits)
	logitsCreated := o.Logits != "" && errors.Is(statErr, fs.ErrNotExist)
	j, err := journal.Create(o.Answers, o.Fingerprint)
	if err != nil {
		return nil, Fault(err)
	}
	s, err := openSink(o, j.State(), true)
	if err != nil {
		return nil, errors.Join(Fault(denied(fmt.Errorf("cannot create --output: %w", err))), remove(o.Answers))
	}
	c := &counter{Sink: s}
	out := &Outputs{path: o.Answers, sink: s, Answers: c, count: c, journal: j, created: true, logitsPath: o.Logits, logitsCreated: logitsCreated}
	if err := out.pinJournal(); err != nil {
		return nil, errors.Join(Fault(err), out.Discard())
	}
	if err := out.openLogits(o, j.State()); err != nil {
		return nil, errors.Join(err, out.Discard())
	}
	return out, nil
}

// openLogits opens the logits folder after the parts st records (none
// for a new run), refusing a folder that does not hold exactly those.
func (o *Outputs) openLogits(opt Options, st journal.State) error {
	if opt.Logits == "" {
		return nil
	}
	p, err := logits.OpenParts(opt.Logits, st.LogitsParts, st.LogitsDigest, logits.Options{ID: opt.Schema.ID, Keep: opt.Keep, KeepKinds: opt.Schema.Keep, Run: st.Run})
	if err != nil {
		return Fault(fmt.Errorf("--logits: %w", err))
	}
	o.Logits, o.logitsDir = p, relativeTo(filepath.Dir(o.path), opt.Logits)
	return nil
}

// relativeTo is path relative to dir where it can be said so, else
// absolute (or as given, when neither can be worked out).
func relativeTo(dir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(absDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// SetInput tells checkpoints where the input continues once the documents
// before next are written (input.Reader.At).
func (o *Outputs) SetInput(at func(next int64) readstate.State) { o.at = at }

// Checkpoint makes the first next documents durable and records that.
// It runs on the scheduler's writer goroutine, or after Run returned.
// After any failure to write or save, it returns that failure and
// records nothing more.
func (o *Outputs) Checkpoint(next int64) error {
	return o.sync(next, false)
}

// Finish is the last checkpoint of a complete run.
func (o *Outputs) Finish(next int64) error {
	return o.sync(next, true)
}

// Flush hands the buffered records to the answers (a compressed member
// ended, a Parquet part sealed) without making them durable or
// journaling them.
func (o *Outputs) Flush() error {
	if o.failed != nil {
		return o.failed
	}
	if err := o.sink.seal(); err != nil {
		o.failed = o.fail(fmt.Errorf("writing %s: %w", o.path, err))
	}
	return o.failed
}

// Saved is how many documents the journal vouches for: those a --resume
// will not redo.
func (o *Outputs) Saved() int64 {
	if o.journal == nil {
		return o.Skip
	}
	return o.journal.State().Done
}

// Journal is the journal's path ("" for standard output).
func (o *Outputs) Journal() string {
	if o.journal == nil {
		return ""
	}
	return journal.Path(o.path)
}

func (o *Outputs) sync(next int64, done bool) error {
	if err := o.Flush(); err != nil {
		return err
	}
	if err := o.save(next, done); err != nil {
		o.failed = o.fail(err)
	}
	return o.failed
}

func (o *Outputs) save(next int64, done bool) error {
	p := journal.Progress{Done: next}
	p.Records, p.Errors = o.Counts()
	if o.Logits != nil {
		n, err := o.Logits.Seal()
		if err != nil {
			return err
		}
		p.LogitsParts, p.LogitsDigest, p.Logits = n, o.Logits.Digest(), o.logitsDir
	}
	// Nothing is vouched for that is not still where it was written.
	if err := o.check(); err != nil {
		return err
	}
	if o.journal == nil {
		return nil
	}
	p.Bytes, p.AnswerParts = o.sink.size()
	p.AnswersHash = o.sink.hashState()
	p.AnswerDigest = o.sink.digest()
	if o.at != nil {
		p.Input = o.at(next)
	} else {
		p.Input = o.journal.State().Input
	}
	save := o.journal.Save
	if done {
		save = o.journal.Complete
	}
	if err := save(o.sink.syncer(), p); err != nil {
		return err
	}
	return o.pinJournal()
}

// Close releases the files; what was not checkpointed is redone on resume.
func (o *Outputs) Close() {
	if o.closed {
		return // closed once, however often called (Discard closes too)
	}
	o.closed = true
	if o.Logits != nil {
		o.Logits.Abort()
	}
	if o.sink != nil {
		o.sink.close()
	}
}
