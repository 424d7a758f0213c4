package logits

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/testing/faultfs"
)

func withDisk(t *testing.T, d *faultfs.Disk) {
	saved := createFile
	createFile = func(name string) (file, error) {
		f, err := saved(name)
		if err != nil {
			return nil, err
		}
		return &faultfs.File{File: f.(*os.File), D: d}, nil
	}
	t.Cleanup(func() { createFile = saved })
}

// TestPartsStorageFaults: a part that cannot be written (no space, or an
// I/O error from fsync) is not sealed: Seal reports the cause, the count
// of sealed parts stays, no partial part is left under either name, and
// once the disk is fixed the parts are written again from the last sealed
// one.
func TestPartsStorageFaults(t *testing.T) {
	rows := genRows(40)
	for _, tc := range []struct {
		name  string
		disk  faultfs.Disk
		cause error
	}{
		{"no space", faultfs.Disk{Room: 2000}, syscall.ENOSPC},
		{"I/O error on fsync", faultfs.Disk{Room: 1 << 30, SyncErr: syscall.EIO}, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "logits")
			p, err := OpenParts(dir, 0, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Write(rows[:10]); err != nil {
				t.Fatal(err)
			}
			if n, err := p.Seal(); err != nil || n != 1 {
				t.Fatalf("first seal: %d %v", n, err)
			}
			digest := p.Digest()
			d := tc.disk
			withDisk(t, &d)
			err = p.Write(rows[10:40])
			if err == nil {
				_, err = p.Seal()
			}
			if !errors.Is(err, tc.cause) {
				t.Fatalf("writing a part on a failing disk: %v, want %v in the chain", err, tc.cause)
			}
			p.Abort()
			for _, gone := range []string{partfolder.Path(dir, 1), partfolder.Path(dir, 1) + partfolder.TempSuffix} {
				if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s after the failure: %v", gone, err)
				}
			}
			d.Room, d.SyncErr = 1<<30, nil
			p, err = OpenParts(dir, 1, digest, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Write(rows[10:40]); err != nil {
				t.Fatal(err)
			}
			if n, err := p.Seal(); err != nil || n != 2 {
				t.Fatalf("seal after the fault: %d %v", n, err)
			}
			if got, err := ReadDir(dir); err != nil || len(got) != 40 {
				t.Fatalf("%d rows, %v; want 40", len(got), err)
			}
		})
	}
}
