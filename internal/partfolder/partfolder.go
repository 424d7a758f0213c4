// Package partfolder writes sealed folders of parts, part-00000.parquet,
// part-00001.parquet, ...: each part is written under a temporary name and
// synced and renamed into place when sealed, so a reader never sees a
// partial part; it also lists, cleans up and removes such folders.
//
// The Parquet answers (package output) and the logits (package logits)
// are both such folders; what goes into a part is theirs.
package partfolder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TempSuffix ends a part's name while it is written, until it is sealed.
const TempSuffix = ".tmp"

// Name is the file name of part i.
func Name(i int) string { return fmt.Sprintf("part-%05d.parquet", i) }

// Path names part i of the folder dir.
func Path(dir string, i int) string { return filepath.Join(dir, Name(i)) }

// Index is the number of a sealed part's name; ok is false for any other
// name, an unsealed part's included. Only the names Name writes count: a
// Spark part-00000-<uuid>.snappy.parquet is not one of qa-shard's.
func Index(name string) (i int, ok bool) {
	n, err := fmt.Sscanf(name, "part-%05d.parquet", &i)
	return i, err == nil && n == 1 && i >= 0 && name == Name(i)
}

// IsPart reports whether name is a part, sealed or not: what Remove
// deletes.
func IsPart(name string) bool {
	if _, ok := Index(name); ok {
		return true
	}
	_, ok := Index(strings.TrimSuffix(name, TempSuffix))
	return ok && strings.HasSuffix(name, TempSuffix)
}

// Foreign lists, sorted, the entries of dir that are not parts: files
// qa-shard did not write there, which Remove leaves and a caller must not
// mix its parts with. A folder that does not exist has none.
func Foreign(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !IsPart(e.Name()) || !e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// List is the sealed parts of dir, in order.
func List(dir string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "part-*.parquet")) // sorted: part-00000 first
	parts := all[:0]
	for _, p := range all {
		if _, ok := Index(filepath.Base(p)); ok {
			parts = append(parts, p)
		}
	}
	return parts, err
}

// Open makes dir ready for part keep: it creates the folder if needed and
// removes what an interrupted run left there: every unsealed part (a name
// ending in TempSuffix) and the parts sealed after the first keep.
func Open(dir string, keep int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if i, sealed := Index(name); strings.HasSuffix(name, TempSuffix) || (sealed && i >= keep) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("removing %s left by an interrupted run: %w", name, err)
			}
		}
	}
	return nil
}

// Remove deletes the parts of dir, sealed or not (for --overwrite); other
// files stay. A folder that does not exist has none.
func Remove(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if IsPart(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Dir is a folder of parts; its Sync makes the renames of the parts
// sealed in it durable.
type Dir string

// Sync fsyncs the folder.
func (d Dir) Sync() error {
	f, err := os.Open(string(d))
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// File is what a part is written to; *os.File is one.
type File interface {
	io.Writer
	Sync() error
	Close() error
}

// Part is one part being written, under its path plus TempSuffix until
// Seal renames it. A Part is not safe for concurrent use.
type Part struct {
	path string
	f    File
}

// Create starts the part at path: open creates its temporary file (a
// stale one from a crashed run is overwritten). Its error is open's.
func Create(path string, open func(name string) (File, error)) (*Part, error) {
	f, err := open(path + TempSuffix)
	if err != nil {
		return nil, err
	}
	return &Part{path: path, f: f}, nil
}

// Write writes to the temporary file.
func (p *Part) Write(b []byte) (int, error) { return p.f.Write(b) }

// Path is the part's name once sealed.
func (p *Part) Path() string { return p.path }

// Temp is the part's name until it is sealed.
func (p *Part) Temp() string { return p.path + TempSuffix }

// Seal closes footer (what writes the end of the part: a Parquet writer),
// then syncs, closes and renames the file into place, the sync first so
// that after a crash the final name never points at data that had not
// reached the disk. On failure the temporary file is removed (it could not
// be read anyway) and the first error returned.
func (p *Part) Seal(footer io.Closer) error {
	err := footer.Close()
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.Temp(), p.path)
	}
	if err != nil {
		os.Remove(p.Temp())
		return err
	}
	return nil
}

// Abort discards the part without publishing it: closing it instead would
// rename a partial part into place.
func (p *Part) Abort() error {
	err := p.f.Close()
	if rerr := os.Remove(p.Temp()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}
