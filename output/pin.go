package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"qa-shard/internal/errkind"
	"qa-shard/internal/journal"
)

// Outputs are checked at every checkpoint before the journal vouches for
// them: the answers file (or folder and its parts), the logits folder and
// its parts and the journal must still be the files this process wrote at
// their paths, with the sizes it wrote. A file truncated, removed or
// replaced from outside the run would otherwise be journaled, and the run
// end with exit 0, for records that are not there.

// ErrChanged marks an output changed from outside the run: the run stops
// (exit 1), and the journal keeps its last checkpoint.
var ErrChanged = errkind.NewInternal("an output was changed from outside the run")

// stater is what pin needs of an open file; *os.File is one.
type stater interface {
	Stat() (os.FileInfo, error)
}

// pinnedFile is a file as this process wrote it: its identity at its path
// and, when held open, the file itself.
type pinnedFile struct {
	path string
	info os.FileInfo
	open stater // nil: not held open (the journal, replaced at each save)
}

// pin notes the open file f at path; nil when f cannot say what it is.
func pin(path string, f any) (*pinnedFile, error) {
	s, ok := f.(stater)
	if !ok {
		return nil, nil
	}
	info, err := s.Stat()
	if err != nil {
		return nil, err
	}
	return &pinnedFile{path: path, info: info, open: s}, nil
}

// check says what changed when path no longer leads to the file noted,
// or the file does not have the size written (want; < 0: the size noted).
func (p *pinnedFile) check(want int64) error {
	st, err := os.Stat(p.path)
	switch {
	case err != nil:
		return fmt.Errorf("%s was removed (%w)", p.path, err)
	case !os.SameFile(st, p.info):
		return fmt.Errorf("%s was replaced by another file", p.path)
	}
	if want < 0 {
		want = p.info.Size()
	}
	if p.open != nil {
		if st, err = p.open.Stat(); err != nil {
			return fmt.Errorf("%s cannot be examined: %w", p.path, err)
		}
	}
	if st.Mode().IsRegular() && st.Size() != want {
		return fmt.Errorf("%s has %d bytes, and %d were written: it was truncated or written to by another program", p.path, st.Size(), want)
	}
	return nil
}

// pinJournal notes the journal as just written.
func (o *Outputs) pinJournal() error {
	if o.journal == nil {
		return nil
	}
	path := journal.Path(o.path)
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	o.journalPin = &pinnedFile{path: path, info: info}
	return nil
}

// Check is nil when every output is still the file written; else an
// ErrChanged saying what changed and what --resume will do. Checkpoints
// run it; a run that failed runs it too, to tell a failure caused by an
// output changed from outside (a folder removed) from any other.
func (o *Outputs) Check() error { return o.check() }

func (o *Outputs) check() error {
	err := o.sink.check()
	if err == nil && o.Logits != nil {
		err = o.Logits.Check()
	}
	if err == nil && o.journalPin != nil {
		err = o.journalPin.check(-1)
	}
	if err == nil {
		return nil
	}
	return changed(err)
}

func changed(err error) error {
	return fmt.Errorf("%w: %w. The documents after the last checkpoint are not kept; --resume checks the outputs against the journal: it continues if they still hold what the journal vouches for and refuses otherwise (then start over with --overwrite)", ErrChanged, err)
}

// fail is the failure to seal or save err, explained: what changed from
// outside the run when something did (a part's folder removed makes the
// seal fail, say), else err marked as a storage fault when it is one.
func (o *Outputs) fail(err error) error {
	if cerr := o.check(); cerr != nil {
		return cerr
	}
	if errors.Is(err, fs.ErrNotExist) {
		return changed(err) // a part removed before it was sealed
	}
	return Fault(err)
}
