package journal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"qa-shard/internal/fingerprint"
)

// Create starts the journal of a new run. It refuses with ErrExists when the
// output or its journal exists (the caller removes them first for
// --overwrite, see Remove), then writes a journal with Done = 0, so even a
// run killed before its first checkpoint can be resumed. The caller creates
// the output file itself.
func Create(outputPath string, fp fingerprint.Fingerprint) (*Journal, error) {
	return create(osFS{}, outputPath, fp)
}

func create(fsys fileSystem, outputPath string, fp fingerprint.Fingerprint) (*Journal, error) {
	if err := CheckFresh(outputPath, Path(outputPath)); err != nil {
		return nil, err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return nil, fmt.Errorf("journal: choosing the run's id: %w", err)
	}
	j := &Journal{path: Path(outputPath), fs: fsys}
	// Nothing is in the output yet, so there is nothing to sync first.
	if err := j.write(State{Version: Version, Fingerprint: fp, Run: hex.EncodeToString(id)}); err != nil {
		return nil, err
	}
	return j, nil
}

// OpenChecked resumes a run (--resume). It reads the journal, refuses a journal
// written for another input, model, settings or questions (a
// *MismatchError naming which), refuses an output shorter than the journal
// says, and truncates a longer one to State.Bytes: a crash between writing
// records and journaling them leaves such a tail, and those documents are
// written again. A missing output is accepted while State.Bytes is 0 (the
// run was killed before it wrote anything durable). A leftover
// <journal>.tmp from a crash during Checkpoint is removed: the journal
// beside it is the last complete one.
//
// The caller then skips documents with Seq < State.Done and appends to the
// output; when State.Complete, nothing is left to do.
//
// verify (nil: none) checks the output against the journal's state (its
// records, its parts) before anything is cut: an error from it is
// returned as it is and nothing is changed on disk.
func OpenChecked(outputPath string, fp fingerprint.Fingerprint, verify func(State) error) (*Journal, State, error) {
	return open(osFS{}, outputPath, fp, verify)
}

func open(fsys fileSystem, outputPath string, fp fingerprint.Fingerprint, verify func(State) error) (*Journal, State, error) {
	path := Path(outputPath)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, State{}, fmt.Errorf("%w: %s does not exist, so there is no run to resume: drop --resume to start one (add --overwrite if %s exists)", ErrNoJournal, path, outputPath)
	}
	if err != nil {
		return nil, State{}, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	s, err := decode(path, b)
	if err != nil {
		return nil, State{}, err
	}
	if cs := fingerprint.Compare(s.Fingerprint, fp); len(cs) > 0 {
		return nil, State{}, &MismatchError{Changes: cs}
	}
	if verify != nil && !s.Complete {
		if err := verify(s); err != nil {
			return nil, State{}, err
		}
	}
	if err := truncateOutput(outputPath, s.Bytes); err != nil {
		return nil, State{}, err
	}
	// The tmp file is only ever a journal not yet renamed into place: a
	// crash interrupted Checkpoint before the rename, so it is dropped.
	if err := os.Remove(path + ".tmp"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, State{}, fmt.Errorf("journal: removing the unfinished %s.tmp: %w", path, err)
	}
	// An older format is rewritten in this one at the next checkpoint.
	s.Version, s.Fingerprint.LegacyShard = Version, ""
	return &Journal{path: path, fs: fsys, last: s}, s, nil
}

// truncateOutput cuts the output back to the journaled length and makes
// the cut durable, so the records appended next cannot end up behind a
// stale tail after another crash.
func truncateOutput(outputPath string, size int64) error {
	if info, err := os.Stat(outputPath); err == nil && info.IsDir() && size == 0 {
		return nil // a folder of sealed parts: its owner drops unsealed ones
	}
	f, err := os.OpenFile(outputPath, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) && size == 0 {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s is missing but the journal says it holds %d bytes: it was moved or deleted; start over with --overwrite", ErrOutputShort, outputPath, size)
	}
	if err != nil {
		return fmt.Errorf("journal: opening the output for resume: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: opening the output for resume: %w", err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file, so it cannot be resumed", ErrInvalid, outputPath)
	}
	if short := fingerprint.OutputLength(outputPath, info.Size(), size); short != "" {
		return fmt.Errorf("%w: %s", ErrOutputShort, short)
	}
	if info.Size() == size {
		return nil
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("journal: truncating %s to the journaled %d bytes: %w", outputPath, size, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal: truncating %s to the journaled %d bytes: %w", outputPath, size, err)
	}
	return nil // the deferred Close cannot undo what Sync made durable
}

// Checkpoint records that documents with Seq < done are in the output and
// that its first bytes bytes are exactly those records. The caller must
// have flushed its buffers into out. Order matters: out is fsynced first,
// then the journal is replaced atomically, so the journal never claims
// bytes that are not durable. Counts may not go backwards.
func (j *Journal) Checkpoint(out Syncer, done, bytes int64, logitsParts int) error {
	last := j.State()
	return j.Save(out, Progress{Done: done, Bytes: bytes, LogitsParts: logitsParts, LogitsDigest: last.LogitsDigest, AnswerParts: last.AnswerParts, AnswerDigest: last.AnswerDigest, Input: last.Input, Records: last.Records, Errors: last.Errors})
}

// Save is Checkpoint with everything a checkpoint records.
func (j *Journal) Save(out Syncer, p Progress) error {
	return j.checkpoint(out, p, false)
}

// Complete is Finish with everything a checkpoint records.
func (j *Journal) Complete(out Syncer, p Progress) error {
	return j.checkpoint(out, p, true)
}

// Finish is the final checkpoint: the same, with State.Complete set. No
// checkpoint may follow it.
func (j *Journal) Finish(out Syncer, done, bytes int64, logitsParts int) error {
	last := j.State()
	return j.Complete(out, Progress{Done: done, Bytes: bytes, LogitsParts: logitsParts, LogitsDigest: last.LogitsDigest, AnswerParts: last.AnswerParts, AnswerDigest: last.AnswerDigest, Input: last.Input, Records: last.Records, Errors: last.Errors})
}

// State returns the state most recently made durable.
func (j *Journal) State() State {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.last
}

func (j *Journal) checkpoint(out Syncer, p Progress, complete bool) error {
	done, bytes, logitsParts := p.Done, p.Bytes, p.LogitsParts
	j.mu.Lock()
	defer j.mu.Unlock()
	last := j.last
	if last.Complete {
		return fmt.Errorf("%w: checkpoint after Finish", ErrInvalid)
	}
	// A checkpoint behind the last one is a bug in the caller's counting;
	// refusing it keeps the journal from describing an output it never had.
	if done < last.Done || bytes < last.Bytes || logitsParts < last.LogitsParts || p.AnswerParts < last.AnswerParts {
		return fmt.Errorf("%w: checkpoint goes backwards (done %d -> %d, bytes %d -> %d, logits parts %d -> %d, answer parts %d -> %d)",
			ErrInvalid, last.Done, done, last.Bytes, bytes, last.LogitsParts, logitsParts, last.AnswerParts, p.AnswerParts)
	}
	if err := out.Sync(); err != nil {
		return fmt.Errorf("journal: syncing the output before a checkpoint: %w", err)
	}
	s := last
	s.Done, s.Bytes, s.LogitsParts, s.LogitsDigest, s.Complete = done, bytes, logitsParts, p.LogitsDigest, complete
	s.AnswerParts, s.AnswerDigest, s.Input, s.Records, s.Errors, s.AnswersHash = p.AnswerParts, p.AnswerDigest, p.Input, p.Records, p.Errors, p.AnswersHash
	if p.Logits != "" {
		s.Logits = p.Logits
	}
	return j.write(s)
}

// write replaces the journal with s: write and fsync <journal>.tmp, rename
// it over the journal, fsync the directory. A crash at any point leaves
// either the old journal or the new one, never a mix. j.last changes only
// once the new state is durable, so a failed write can be retried.
func (j *Journal) write(s State) error {
	// Whole seconds: enough for a person, and a fixed width, so the
	// journal's size depends on nothing but its counts' digits.
	s.Updated = time.Now().UTC().Truncate(time.Second)
	b, err := encode(s)
	if err != nil {
		return err
	}
	tmp := j.path + ".tmp"
	f, err := j.fs.Create(tmp)
	if err != nil {
		return fmt.Errorf("journal: writing %s: %w", tmp, err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// On a full disk the partial tmp file holds space the next
		// attempt needs; the journal beside it is intact.
		os.Remove(tmp)
		return fmt.Errorf("journal: writing %s: %w", tmp, err)
	}
	if err := j.fs.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("journal: replacing %s: %w", j.path, err)
	}
	if err := j.fs.SyncDir(filepath.Dir(j.path)); err != nil {
		return fmt.Errorf("journal: syncing the directory of %s: %w", j.path, err)
	}
	j.last = s
	return nil
}
