package logits

import (
	"errors"
	"fmt"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/pin"
	"qa-shard/internal/record"
)

// Parts writes the logits of a run as a directory of Parquet files,
// part-00000.parquet, part-00001.parquet, ...: a dataset that pandas,
// polars and pyarrow open in one line (pd.read_parquet(dir)). A part is
// sealed (footer written, synced, renamed) at every checkpoint, so a run
// that is killed and resumed keeps every sealed part and rewrites only
// what followed the last checkpoint. Each part names its run in its
// metadata (Options.Run), and Digest chains the parts sealed so far, so a
// resume proves the folder is the one the journal describes.
type Parts struct {
	dir    string
	opt    Options
	n      int
	digest string
	cur    *Writer
	pins   *pin.Folder
}

// OpenParts prepares dir for writing after the first keep sealed parts,
// whose Digest was digest (a resumed run; 0 and "" for a new one). It
// refuses a folder that does not hold exactly those parts of opt.Run
// (ErrParts, naming the missing, foreign or changed ones) before it
// changes anything; then it removes unsealed parts and the parts of this
// run sealed after the last checkpoint.
func OpenParts(dir string, keep int, digest string, opt Options) (*Parts, error) {
	if err := Verify(dir, keep, digest, opt.Run); err != nil {
		return nil, err
	}
	if err := partfolder.Open(dir, keep); err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	pins, err := pin.Parts(dir, keep, partfolder.Path)
	if err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	return &Parts{dir: dir, opt: opt, n: keep, digest: digest, pins: pins}, nil
}

// RemoveParts deletes the parts (sealed or not) of a logits folder, for
// --overwrite; other files stay.
func RemoveParts(dir string) error {
	if err := partfolder.Remove(dir); err != nil {
		return fmt.Errorf("logits: %w", err)
	}
	return nil
}

// Digest chains the size and footer of every sealed part, in order: what
// a checkpoint records (journal.State.LogitsDigest).
func (p *Parts) Digest() string { return p.digest }

// Write appends rows to the open part, starting one if needed.
func (p *Parts) Write(rows []record.LogitsRow) error {
	if p.cur == nil {
		w, err := create(partfolder.Path(p.dir, p.n), p.opt)
		if err != nil {
			return err
		}
		p.cur = w
	}
	return p.cur.Write(rows)
}

// Seal closes the open part, if any, and returns how many parts are sealed.
func (p *Parts) Seal() (int, error) {
	if p.cur == nil {
		return p.n, nil
	}
	err := p.cur.Close()
	p.cur = nil
	if err != nil {
		return p.n, err
	}
	s, err := readSealed(partfolder.Path(p.dir, p.n))
	if err != nil {
		return p.n, fmt.Errorf("logits: reading back the part just sealed: %w", err)
	}
	if err := p.pins.Sealed(p.n); err != nil {
		return p.n, fmt.Errorf("logits: %w", err)
	}
	p.digest = chain(p.digest, s)
	p.n++
	return p.n, nil
}

// Check says what changed when the folder or a part sealed is no longer
// the file written at its path (removed, replaced, resized from outside
// the run); nil when none did. Checkpoints call it before the journal
// vouches for the parts.
func (p *Parts) Check() error {
	if err := p.pins.Check(); err != nil {
		return fmt.Errorf("logits: %w", err)
	}
	return nil
}

// Abort drops the open part.
func (p *Parts) Abort() error {
	if p.cur == nil {
		return nil
	}
	err := p.cur.Abort()
	p.cur = nil
	return err
}

// ReadDir loads every row of a logits directory, parts in order.
func ReadDir(dir string) ([]record.LogitsRow, error) {
	matches, err := partfolder.List(dir)
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, errors.New("logits: no part-*.parquet files in " + dir)
	}
	var rows []record.LogitsRow
	for _, m := range matches {
		r, err := readAll(m)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
