package partfolder

import (
	"fmt"
	"os"
)

// Pins remember a folder and its sealed parts as this process last saw
// them, so that a checkpoint can tell they are still the files at their
// paths (same file, same size) before a journal vouches for them.
type Pins struct {
	dir   string
	info  os.FileInfo   // the folder
	parts []os.FileInfo // part i as sealed (or found at Pin)
}

// Pin notes dir and its first n sealed parts (those a resume keeps).
func Pin(dir string, n int) (*Pins, error) {
	p := &Pins{dir: dir}
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
func (p *Pins) Sealed(i int) error {
	st, err := os.Stat(Path(p.dir, i))
	if err != nil {
		return err
	}
	for len(p.parts) <= i {
		p.parts = append(p.parts, nil)
	}
	p.parts[i] = st
	return nil
}

// Check says what changed when the folder or a part noted is no longer
// the same file of the same size at its path; nil when none did.
func (p *Pins) Check() error {
	st, err := os.Stat(p.dir)
	switch {
	case err != nil:
		return fmt.Errorf("the folder %s was removed (%w)", p.dir, err)
	case !os.SameFile(st, p.info):
		return fmt.Errorf("the folder %s was replaced by another folder", p.dir)
	}
	for i, want := range p.parts {
		if want == nil {
			continue
		}
		path := Path(p.dir, i)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Errorf("%s was removed (%w)", path, err)
		case !os.SameFile(st, want):
			return fmt.Errorf("%s was replaced by another file", path)
		case st.Size() != want.Size():
			return fmt.Errorf("%s has %d bytes, and %d were sealed", path, st.Size(), want.Size())
		}
	}
	return nil
}
