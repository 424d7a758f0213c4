package pin

import (
	"fmt"
	"os"
)

// Folder remembers a folder and its sealed parts as this process last saw
// them, so that a checkpoint can tell they are still the files at their
// paths (same file, same size) before a journal vouches for them.
type Folder struct {
	dir   string
	part  func(dir string, i int) string // the path of part i
	info  os.FileInfo                    // the folder
	parts []os.FileInfo                  // part i as sealed (or found at Parts)
}

// Parts notes dir and its first n sealed parts (those a resume keeps),
// part naming the path of each.
func Parts(dir string, n int, part func(dir string, i int) string) (*Folder, error) {
	p := &Folder{dir: dir, part: part}
	var err error
	if p.info, err = os.Stat(dir); err != nil {
		return nil, err
	}
	for i := range n {
		if err := p.Sealed(i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Sealed notes part i, just sealed.
func (p *Folder) Sealed(i int) error {
	st, err := os.Stat(p.part(p.dir, i))
	if err != nil {
		return err
	}
	for len(p.parts) <= i {
		p.parts = append(p.parts, nil)
	}
	p.parts[i] = st
	return nil
}

// Check says what changed (an ErrChanged) when the folder or a part noted
// is no longer the same file of the same size at its path; nil when none
// did.
func (p *Folder) Check() error {
	if _, err := Same(p.dir, p.info); err != nil {
		return fmt.Errorf("the folder %s %w", p.dir, err)
	}
	for i, want := range p.parts {
		if want == nil {
			continue
		}
		path := p.part(p.dir, i)
		st, err := Same(path, want)
		switch {
		case err != nil:
			return fmt.Errorf("%s %w", path, err)
		case st.Size() != want.Size():
			return Changedf("%s has %d bytes, and %d were sealed", path, st.Size(), want.Size())
		}
	}
	return nil
}
