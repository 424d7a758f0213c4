package output

import (
	"errors"
	"fmt"
	"io/fs"

	"qa-shard/internal/pin"
	"qa-shard/journal"
)

// Outputs are pinned (package pin) and checked at every checkpoint
// before the journal vouches for them: the answers file (or folder and its parts), the logits folder and
// its parts and the journal must still be the files this process wrote at
// their paths, with the sizes it wrote. A file truncated, removed or
// replaced from outside the run would otherwise be journaled, and the run
// end with exit 0, for records that are not there.

// pinJournal notes the journal as just written.
func (o *Outputs) pinJournal() error {
	if o.journal == nil {
		return nil
	}
	p, err := pin.Stat(journal.Path(o.path))
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	o.journalPin = p
	return nil
}

// Check is nil when every output is still the file written; else a
// pin.ErrChanged saying what changed and what --resume will do. Checkpoints
// run it; a run that failed runs it too, to tell a failure caused by an
// output changed from outside (a folder removed) from any other.
func (o *Outputs) Check() error { return o.check() }

func (o *Outputs) check() error {
	err := o.sink.check()
	if err == nil && o.Logits != nil {
		err = o.Logits.Check()
	}
	if err == nil && o.journalPin != nil {
		err = o.journalPin.Check(-1)
	}
	if err == nil {
		return nil
	}
	return changed(err)
}

// changed is err, a change found, said as an output's with what --resume
// does next.
func changed(err error) error {
	return pin.Changedf("an output was changed from outside the run: %w. The documents after the last checkpoint are not kept; --resume checks the outputs against the journal: it continues if they still hold what the journal vouches for and refuses otherwise (then start over with --overwrite)", err)
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
