// Package faultfs is storage that fails on purpose, for the tests of the
// packages that write outputs: a disk that fills up (ENOSPC) and one whose
// fsync fails.
package faultfs

import (
	"os"
	"syscall"
)

// Disk has room for Room more bytes: a write past it stores what fits and
// fails with ENOSPC, as a full file system does. SyncErr, when set, is
// what every Sync returns.
type Disk struct {
	Room    int
	SyncErr error
}

// File is an open file on d.
type File struct {
	*os.File
	D *Disk
}

// Open opens name on d (os.OpenFile with mode 0644).
func (d *Disk) Open(name string, flag int) (*File, error) {
	f, err := os.OpenFile(name, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &File{f, d}, nil
}

func (f *File) Write(p []byte) (int, error) {
	n, err := f.File.Write(p[:min(len(p), f.D.Room)])
	f.D.Room -= n
	if err == nil && n < len(p) {
		err = &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return n, err
}

func (f *File) Sync() error {
	if f.D.SyncErr != nil {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: f.D.SyncErr}
	}
	return f.File.Sync()
}
