package input

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"qa-shard/internal/format"
	"qa-shard/internal/pin"
)

// Input files are pinned while read (package pin): a file changed in place, truncated,
// replaced or removed under a running job would give documents of two
// texts, or too few, in an output its journal calls complete. Check
// compares each file opened with what was read of it; a read that ends
// before the size the file had when the run started is the same change,
// seen by the reader. Growth at the end (a file still being appended to)
// is no change: the text read before it hashes the same.

// pins are the input files opened, by index, each with its identity as
// it was opened: what Check compares.
type pins struct {
	mu    sync.Mutex
	files map[int]os.FileInfo
	ends  map[int]int64 // files read to their end: the bytes read
}

// end notes that a file was read to its end, n bytes: a file that grows
// after that holds documents the run will not answer (Check).
func (p *pins) end(file int, n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ends == nil {
		p.ends = map[int]int64{}
	}
	p.ends[file] = n
}

// note notes the identity of a file as it is opened, for Check.
func (p *pins) note(file int, h handle) {
	f, ok := h.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return
	}
	st, err := f.Stat()
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files == nil {
		p.files = map[int]os.FileInfo{}
	}
	p.files[file] = st
}

// opened is the files pinned so far, in the order of their index, and
// the bytes read of those read to their end.
func (p *pins) opened() ([]int, map[int]os.FileInfo, map[int]int64) {
	p.mu.Lock()
	pinned := make(map[int]os.FileInfo, len(p.files))
	for k, v := range p.files {
		pinned[k] = v
	}
	ends := make(map[int]int64, len(p.ends))
	for k, v := range p.ends {
		ends[k] = v
	}
	p.mu.Unlock()
	files := make([]int, 0, len(pinned))
	for k := range pinned {
		files = append(files, k)
	}
	slices.Sort(files)
	return files, pinned, ends
}

// Check reports ErrChanged, naming the file and what changed, when an
// input file opened by this run is no longer the file that was read: not
// the same file at its path (replaced or removed), shorter than when the
// run started (truncated), the same size with another modification time
// (changed in place), grown with the text already read changed (a plain
// JSONL file is hashed again up to the last document read), or, for a
// Parquet file, grown at all (its footer ends it). Parquet files are
// pinned by identity, size and time: their row groups are not hashed again. It runs
// from the writer at every checkpoint and at the end, while the reader
// reads.
func (s *Reader) Check() error {
	last := s.marks.last() // before the pins: its file was pinned before it was read
	files, pinned, ends := s.pins.opened()
	for _, i := range files {
		f := &s.plan.Files[i]
		var read *mark
		if last != nil && s.plan.Parts[last.part].File == i {
			read = last
		}
		if err := checkFile(f, pinned[i], read); err != nil {
			return fmt.Errorf("%w: input file %s %w while the run read it; the documents after the last checkpoint are not kept. --resume checks the file against the journal: it continues if the text read before the checkpoint is unchanged (restored, or only appended to) and refuses otherwise (then start over with --overwrite)",
				ErrChanged, f.Name, err)
		}
		if n, ok := ends[i]; ok {
			if st, err := os.Stat(f.Path); err == nil && st.Size() > n {
				return fmt.Errorf("%w: input file %s grew after the run had read it to its end (%d bytes read, now %d): the documents appended are not answered. The documents after the last checkpoint are not kept either (the last one read may have been a line still being written); rerun the same command with --resume once the file is complete to answer the rest",
					ErrGrew, f.Name, n, st.Size())
			}
		}
	}
	return nil
}

// checkFile compares one file with its pin and, when it grew, its text up
// to the last document read (read, nil when none is in this file).
func checkFile(f *File, pinned os.FileInfo, read *mark) error {
	st, err := pin.Same(f.Path, pinned)
	switch {
	case err != nil:
		return err
	case st.Size() < f.Size:
		return pin.Changedf("was truncated (%d bytes when the run started, now %d)", f.Size, st.Size())
	case st.ModTime().Equal(f.ModTime):
		return nil
	case st.Size() == f.Size:
		return pin.Changedf("was changed in place (same size, modified at %s)", st.ModTime().UTC().Format("2006-01-02T15:04:05.999999999Z"))
	case f.Format == format.Parquet || f.Format == format.SQuAD:
		// A Parquet file ends with its footer, a SQuAD dataset with its
		// closing brace: one that grew was rewritten.
		return pin.Changedf("was rewritten (%d bytes when the run started, now %d)", f.Size, st.Size())
	case read == nil || f.Format != format.JSONL:
		return nil // grew; compressed text is not hashed again here
	}
	h, err := open(f)
	if err != nil {
		return fmt.Errorf("cannot be opened again: %w", err)
	}
	defer h.Close()
	state := read.state
	if got, err := hashRange(h, read.from, read.to); err != nil {
		return fmt.Errorf("cannot be read again: %w", err)
	} else if got != sum(state) {
		return pin.Changedf("grew, and its text before byte %d changed", read.to)
	}
	return nil
}

// hashRange is the hex SHA-256 of bytes [from, to) of h.
func hashRange(h handle, from, to int64) (string, error) {
	d := sha256.New()
	if _, err := io.Copy(d, io.NewSectionReader(h, from, to-from)); err != nil {
		return "", err
	}
	return sum(snapshotOf(d)), nil
}

// endsShort is the end of a file's text: io.EOF, or ErrChanged when a
// file read to its end ends before the size it had when the run started
// (truncated while read). Standard input, and rank parts that end inside
// the file, have no such size.
func (lr *lineReader) endsShort(eof error) error {
	f := lr.f
	if lr.h == nil || f == nil || !lr.toEnd || lr.t.base+lr.t.raw.n >= f.Size {
		return eof
	}
	return fmt.Errorf("%w: input file %s %w", ErrChanged, f.Name, pin.Changedf("was truncated while the run read it: its text ends at byte %d, and it had %d bytes when the run started. --resume checks the file against the journal: it continues once the file is restored and refuses otherwise",
		lr.t.base+lr.t.raw.n, f.Size))
}

// Guard makes each checkpoint check first that the input files are still
// those read (Check): a checkpoint must never vouch for documents of a
// changed file.
func (s *Reader) Guard(checkpoint func(next int64) error) func(next int64) error {
	return func(next int64) error {
		if err := s.Check(); err != nil {
			return err
		}
		return checkpoint(next)
	}
}
