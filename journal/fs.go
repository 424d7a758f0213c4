package journal

import (
	"errors"
	"os"
	"syscall"
)

// fileSystem is the few operations that replace the journal. It exists so
// tests can record their order against the output's Sync and inject a crash
// between any two of them; production code uses osFS.
type fileSystem interface {
	// Create creates or truncates name for writing.
	Create(name string) (file, error)
	Rename(oldpath, newpath string) error
	// SyncDir makes a rename in dir durable.
	SyncDir(dir string) error
}

type file interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

type osFS struct{}

func (osFS) Create(name string) (file, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (osFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	// Some file systems (and platforms) cannot fsync a directory and say
	// so with EINVAL or ENOTSUP; the rename is then as durable as they
	// allow, and failing every checkpoint would make resume unusable there.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil
	}
	return errors.Join(err, d.Close())
}
