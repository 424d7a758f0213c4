package logits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
}

// OpenParts prepares dir for writing after the first keep sealed parts,
// whose Digest was digest (a resumed run; 0 and "" for a new one). It
// refuses a folder that does not hold exactly those parts of opt.Run
// (ErrParts, naming the missing, foreign or changed ones) before it
// changes anything; then it removes unsealed parts and the parts of this
// run sealed after the last checkpoint.
func OpenParts(dir string, keep int, digest string, opt Options) (*Parts, error) {
	later, err := verify(dir, keep, digest, opt.Run)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), TempSuffix) {
			later = append(later, filepath.Join(dir, e.Name()))
		}
	}
	for _, path := range later {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("logits: removing %s left by an interrupted run: %w", filepath.Base(path), err)
		}
	}
	return &Parts{dir: dir, opt: opt, n: keep, digest: digest}, nil
}

// RemoveParts deletes the parts (sealed or not) of a logits folder, for
// --overwrite; other files stay.
func RemoveParts(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("logits: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "part-") && (strings.HasSuffix(e.Name(), ".parquet") || strings.HasSuffix(e.Name(), ".parquet"+TempSuffix)) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("logits: %w", err)
			}
		}
	}
	return nil
}

// Digest chains the size and footer of every sealed part, in order: what
// a checkpoint records (journal.State.LogitsDigest).
func (p *Parts) Digest() string { return p.digest }

// PartPath names part i of a logits directory.
func PartPath(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("part-%05d.parquet", i))
}

// Write appends rows to the open part, starting one if needed.
func (p *Parts) Write(rows []Row) error {
	if p.cur == nil {
		w, err := Create(PartPath(p.dir, p.n), p.opt)
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
	s, err := readSealed(PartPath(p.dir, p.n))
	if err != nil {
		return p.n, fmt.Errorf("logits: reading back the part just sealed: %w", err)
	}
	p.digest = chain(p.digest, s)
	p.n++
	return p.n, nil
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
func ReadDir(dir string) ([]Row, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, errors.New("logits: no part-*.parquet files in " + dir)
	}
	slices.Sort(matches)
	var rows []Row
	for _, m := range matches {
		r, err := ReadAll(m)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
