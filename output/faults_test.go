package output

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"qa-shard/internal/filelock"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/testing/faultfs"
	"qa-shard/journal"
)

// disk opens faultfs files as package output's files.
type disk struct{ faultfs.Disk }

func (d *disk) open(name string, flag int) (file, error) { return d.Open(name, flag) }

// TestStorageFaults: ENOSPC while writing the answers, and EIO from fsync,
// stop the checkpoints: the failure is ErrStorage with its cause and path,
// the journal keeps the state of the last good checkpoint (matching the
// bytes that are durable), no later checkpoint is recorded, and after the
// fault is gone --resume ends byte-identical to a run that never failed.
func TestStorageFaults(t *testing.T) {
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	ids := []string{"a", "b", "c", "d", "e", "f"}
	want := func() []byte {
		path := filepath.Join(t.TempDir(), "answers.jsonl")
		out, err := Open(Options{Answers: path, Fingerprint: fp})
		if err != nil {
			t.Fatal(err)
		}
		write(t, out, ids...)
		if err := out.Finish(6); err != nil {
			t.Fatal(err)
		}
		out.Close()
		b, _ := os.ReadFile(path)
		return b
	}()
	record := len(want) / len(ids)
	for _, tc := range []struct {
		name  string
		disk  disk
		cause error
	}{
		{"no space while writing", disk{faultfs.Disk{Room: 3*record + 5}}, syscall.ENOSPC},
		{"I/O error from fsync", disk{faultfs.Disk{Room: 1 << 20, SyncErr: syscall.EIO}}, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "answers.jsonl")
			d := tc.disk
			syncErr := d.SyncErr
			d.SyncErr = nil
			out, err := Open(Options{Answers: path, Fingerprint: fp, openFile: d.open})
			if err != nil {
				t.Fatal(err)
			}
			write(t, out, "a", "b")
			if err := out.Checkpoint(2); err != nil {
				t.Fatal(err)
			}
			d.SyncErr = syncErr
			write(t, out, "c", "d")
			err = out.Checkpoint(4)
			if !errors.Is(err, ErrStorage) || !errors.Is(err, tc.cause) || !strings.Contains(err.Error(), path) {
				t.Fatalf("checkpoint on a failing disk: %v, want ErrStorage from %v naming %s", err, tc.cause, path)
			}
			d.Room, d.SyncErr = 1<<20, nil // the space is freed: still no checkpoint
			if err2 := out.Finish(4); !errors.Is(err2, tc.cause) {
				t.Fatalf("a checkpoint after the failure: %v, want the first failure again", err2)
			}
			if out.Saved() != 2 {
				t.Errorf("Saved = %d, want 2", out.Saved())
			}
			out.Close()
			st, err := journal.Read(path)
			if err != nil || st.Done != 2 || st.Bytes != int64(2*record) || st.Complete {
				t.Fatalf("journal after the failure: %+v %v, want 2 documents in %d bytes", st, err, 2*record)
			}
			got, _ := os.ReadFile(path)
			if !bytes.HasPrefix(got, want[:st.Bytes]) {
				t.Fatalf("the journaled bytes are not the records:\n%s", got)
			}

			out, err = Open(Options{Answers: path, Resume: true, Fingerprint: fp})
			if err != nil || out.Skip != 2 {
				t.Fatalf("resume: skip %v, %v", out, err)
			}
			write(t, out, ids[2:]...)
			if err := out.Finish(6); err != nil {
				t.Fatal(err)
			}
			out.Close()
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
				t.Fatalf("resumed output:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestFault: only the storage's failures are ErrStorage.
func TestFault(t *testing.T) {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS} {
		if err := Fault(&os.PathError{Op: "write", Path: "x", Err: e}); !errors.Is(err, ErrStorage) || !errors.Is(err, e) {
			t.Errorf("%v: %v", e, err)
		}
	}
	if err := Fault(errors.New("bug")); errors.Is(err, ErrStorage) {
		t.Errorf("a plain error became ErrStorage: %v", err)
	}
	if Fault(nil) != nil {
		t.Error("Fault(nil) != nil")
	}
}

// TestClaim: a missing folder or one under a file is ErrUnwritable (so is
// a read-only one, checked where the test is not root); a held output is
// refused naming the holder; without locks the folder is still checked.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []string{filepath.Join(dir, "missing", "a.jsonl"), filepath.Join(file, "a.jsonl")}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		bad = append(bad, filepath.Join(ro, "a.jsonl"))
	}
	for _, lock := range []bool{true, false} {
		for _, p := range bad {
			if _, err := Claim(p, "", "x", lock); !errors.Is(err, ErrUnwritable) || !strings.Contains(err.Error(), p) {
				t.Errorf("Claim(%s, lock %v): %v, want ErrUnwritable naming it", p, lock, err)
			}
			if _, err := Claim(filepath.Join(dir, "ok.jsonl"), p, "x", lock); !errors.Is(err, ErrUnwritable) {
				t.Errorf("Claim with --logits %s (lock %v): %v, want ErrUnwritable", p, lock, err)
			}
		}
	}
	answers := filepath.Join(dir, "answers.jsonl")
	s, err := Claim(answers, filepath.Join(dir, "logits"), "first", true)
	if err != nil || len(s) != 2 {
		t.Fatalf("Claim: %d locks, %v", len(s), err)
	}
	defer s.Release()
	if _, err := Claim(answers, "", "second", true); !errors.Is(err, filelock.ErrHeld) || !strings.Contains(err.Error(), "first") {
		t.Errorf("Claim of a held output: %v", err)
	}
	if _, err := Claim(filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "logits"), "third", true); !errors.Is(err, filelock.ErrHeld) {
		t.Errorf("Claim of a held logits folder: %v", err)
	}
	if s, err := Claim(answers, "-", "unlocked", false); err != nil || s != nil {
		t.Errorf("Claim without locks: %v %v", s, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".qa-shard-probe-") {
			t.Errorf("a probe file was left behind: %s", e.Name())
		}
	}
}
