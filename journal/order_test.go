package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"qa-shard/internal/fingerprint"
)

// recorder logs, in one sequence, the output's Sync and every file system
// operation that replaces the journal, and can fail one of them to simulate
// a crash at that point.
type recorder struct {
	log    []string
	failAt string // the operation that fails; "" for none
}

var errCrash = errors.New("simulated crash")

func (r *recorder) do(op string) error {
	r.log = append(r.log, op)
	if op == r.failAt {
		return errCrash
	}
	return nil
}

func (r *recorder) Sync() error { return r.do("output.Sync") }

func (r *recorder) Create(name string) (file, error) {
	if err := r.do("Create " + filepath.Base(name)); err != nil {
		return nil, err
	}
	f, err := osFS{}.Create(name)
	if err != nil {
		return nil, err
	}
	return &recFile{r: r, f: f, name: filepath.Base(name)}, nil
}

func (r *recorder) Rename(oldpath, newpath string) error {
	if err := r.do(fmt.Sprintf("Rename %s %s", filepath.Base(oldpath), filepath.Base(newpath))); err != nil {
		return err
	}
	return os.Rename(oldpath, newpath)
}

func (r *recorder) SyncDir(dir string) error {
	if err := r.do("SyncDir"); err != nil {
		return err
	}
	return osFS{}.SyncDir(dir)
}

type recFile struct {
	r    *recorder
	f    file
	name string
}

func (f *recFile) Write(p []byte) (int, error) {
	if err := f.r.do("Write " + f.name); err != nil {
		// A crash mid-write leaves half the bytes behind.
		_, _ = f.f.Write(p[:len(p)/2]) // the injected failure is what Write reports
		return len(p) / 2, err
	}
	return f.f.Write(p)
}

func (f *recFile) Sync() error {
	if err := f.r.do("Sync " + f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *recFile) Close() error {
	err := f.r.do("Close " + f.name)
	return errors.Join(err, f.f.Close())
}

var checkpointOrder = []string{
	"output.Sync",
	"Create answers.jsonl.journal.tmp",
	"Write answers.jsonl.journal.tmp",
	"Sync answers.jsonl.journal.tmp",
	"Close answers.jsonl.journal.tmp",
	"Rename answers.jsonl.journal.tmp answers.jsonl.journal",
	"SyncDir",
}

func TestCheckpointOrder(t *testing.T) {
	rec := &recorder{}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	j, err := create(rec, out, fingerprint.Fingerprint{Input: "i"})
	if err != nil {
		t.Fatal(err)
	}
	// Create has no output to sync; the rest of the sequence is the same.
	if got, want := strings.Join(rec.log, "\n"), strings.Join(checkpointOrder[1:], "\n"); got != want {
		t.Errorf("Create did\n%s\nwant\n%s", got, want)
	}
	for _, finish := range []bool{false, true} {
		rec.log = nil
		if finish {
			err = j.Finish(rec, 2, 20, 0)
		} else {
			err = j.Checkpoint(rec, 1, 10, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(rec.log, "\n"), strings.Join(checkpointOrder, "\n"); got != want {
			t.Errorf("finish=%v did\n%s\nwant\n%s", finish, got, want)
		}
	}
}

// TestCheckpointCrash fails each step of a checkpoint in turn: the journal
// on disk is the previous one or the new one, never neither, and a failed
// checkpoint can be retried.
func TestCheckpointCrash(t *testing.T) {
	for i, step := range checkpointOrder {
		t.Run(step, func(t *testing.T) {
			rec := &recorder{}
			out := filepath.Join(t.TempDir(), "answers.jsonl")
			if err := os.WriteFile(out, []byte("r0\nr1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			j := &Journal{path: Path(out), fs: rec}
			if err := j.write(State{Version: Version, Done: 1, Bytes: 3}); err != nil {
				t.Fatal(err)
			}
			rec.failAt = step
			if err := j.Checkpoint(rec, 2, 6, 0); !errors.Is(err, errCrash) {
				t.Fatalf("Checkpoint = %v, want the simulated crash", err)
			}
			if s := j.State(); s.Done != 1 {
				t.Errorf("after a failed checkpoint the journal reports done %d, want 1", s.Done)
			}
			_, s, err := OpenChecked(out, fingerprint.Fingerprint{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Up to the rename the old journal stands; from the rename on
			// the new one does (only the directory sync failed).
			wantDone := int64(1)
			if i >= 6 {
				wantDone = 2
			}
			if s.Done != wantDone {
				t.Errorf("Open after a crash at %q = done %d, want %d", step, s.Done, wantDone)
			}
			rec.failAt = ""
			if err := j.Checkpoint(rec, 2, 6, 0); err != nil {
				t.Errorf("retrying the checkpoint: %v", err)
			}
		})
	}
}

// fullFS is a file system on which writing the journal fails with ENOSPC
// (after storing half the bytes) while full is set.
type fullFS struct {
	osFS
	full bool
}

type fullFile struct {
	file
	fs *fullFS
}

func (f fullFS) Create(name string) (file, error) {
	g, err := f.osFS.Create(name)
	return fullFile{g, &f}, err
}

func (f fullFile) Write(p []byte) (int, error) {
	if f.fs.full {
		n, _ := f.file.Write(p[:len(p)/2])
		return n, &os.PathError{Op: "write", Path: "journal", Err: syscall.ENOSPC}
	}
	return f.file.Write(p)
}

// TestCheckpointNoSpace: a checkpoint on a full disk fails with ENOSPC in
// its chain, leaves the previous journal in place and no partial tmp file
// (it would hold space), and succeeds once there is room.
func TestCheckpointNoSpace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(out, []byte("r0\nr1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := &fullFS{}
	j := &Journal{path: Path(out), fs: fsys}
	if err := j.write(State{Version: Version, Done: 1, Bytes: 3}); err != nil {
		t.Fatal(err)
	}
	fsys.full = true
	err := j.Checkpoint(okSyncer{}, 2, 6, 0)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), Path(out)+".tmp") {
		t.Fatalf("checkpoint on a full disk: %v, want ENOSPC naming the tmp file", err)
	}
	if _, err := os.Stat(Path(out) + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial tmp file left behind: %v", err)
	}
	if s, err := Read(out); err != nil || s.Done != 1 || s.Bytes != 3 {
		t.Fatalf("journal after the failure: %+v %v, want the previous one", s, err)
	}
	fsys.full = false
	if err := j.Checkpoint(okSyncer{}, 2, 6, 0); err != nil {
		t.Fatalf("checkpoint once there is room: %v", err)
	}
}

type okSyncer struct{}

func (okSyncer) Sync() error { return nil }
