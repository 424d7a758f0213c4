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
// what followed the last checkpoint.
type Parts struct {
	dir string
	opt Options
	n   int
	cur *Writer
}

// OpenParts prepares dir for writing, keeping the first keep sealed parts
// (a resumed run) and removing any later or unsealed ones.
func OpenParts(dir string, keep int, opt Options) (*Parts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("logits: %w", err)
	}
	for _, e := range entries {
		var i int
		name := e.Name()
		sealed, _ := fmt.Sscanf(name, "part-%05d.parquet", &i)
		if strings.HasSuffix(name, TempSuffix) || (sealed == 1 && i >= keep) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("logits: removing %s left by an interrupted run: %w", name, err)
			}
		}
	}
	return &Parts{dir: dir, opt: opt, n: keep}, nil
}

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
