package checkpoint

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapping is a weight file mapped read-only: its pages are the kernel's
// page cache, read on first touch and shared with every reader of the
// file, so a build streams the weights without a copy of its own.
type mapping struct {
	path string
	data []byte
}

func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCheckpoint, path)
	}
	m := &mapping{path: path}
	if st.Size() == 0 {
		return m, nil
	}
	m.data, err = unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%w: mapping %s: %w", ErrCheckpoint, path, err)
	}
	// Weights are read once, front to back, when a graph is built.
	_ = unix.Madvise(m.data, unix.MADV_SEQUENTIAL)
	return m, nil
}

func (m *mapping) close() error {
	if m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	return err
}
