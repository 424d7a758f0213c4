package pin

import (
	"fmt"
	"os"
)

// stater is what File needs of an open file; *os.File is one.
type stater interface {
	Stat() (os.FileInfo, error)
}

// File is a file as this process wrote it: its identity at its path and,
// when held open, the file itself.
type File struct {
	path string
	info os.FileInfo
	open stater // nil: not held open (the journal, replaced at each save)
}

// Open notes the open file f at path; nil when f cannot say what it is.
func Open(path string, f any) (*File, error) {
	s, ok := f.(stater)
	if !ok {
		return nil, nil
	}
	info, err := s.Stat()
	if err != nil {
		return nil, err
	}
	return &File{path: path, info: info, open: s}, nil
}

// Stat notes the file at path as it is now, not held open.
func Stat(path string) (*File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, info: info}, nil
}

// Check says what changed (an ErrChanged) when the path no longer leads
// to the file noted, or the file does not have the size written (want;
// < 0: the size noted).
func (p *File) Check(want int64) error {
	st, err := Same(p.path, p.info)
	if err != nil {
		return fmt.Errorf("%s %w", p.path, err)
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
		return Changedf("%s has %d bytes, and %d were written: it was truncated or written to by another program", p.path, st.Size(), want)
	}
	return nil
}
