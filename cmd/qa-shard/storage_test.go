package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"qa-shard/internal/testing/testenv"
)

// tmpfs mounts a tmpfs of the given size (mount -o size=...) on a fresh
// folder; root only: elsewhere the test is skipped, saying so.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Need(t, testenv.Absent("root (to mount a small tmpfs)", "run the tests as root to run this one (CI does)", nil))
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("root, yet mount -t tmpfs -o size=%s failed: %v (a container without CAP_SYS_ADMIN?)", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("umount %s: %v", dir, err)
		}
	})
	return dir
}

func remount(t *testing.T, dir, opts string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, opts); err != nil {
		t.Fatalf("remount %s %s: %v", dir, opts, err)
	}
}

// TestDiskFullThenResume: on a tmpfs too small for the outputs the run
// stops with exit 75, saying what failed, where, how many documents are
// saved and what to do; the journal vouches only for records that are on
// disk; once the tmpfs is enlarged (space freed), --resume ends
// byte-identical to an uninterrupted run, logits included. A read-only
// output folder is refused with exit 2 before the model loads.
func TestDiskFullThenResume(t *testing.T) {
	in := writeCorpus(t, 200, 51)
	for _, tc := range []struct {
		name, size string
		logits     bool
	}{
		{"answers", "16k", false},
		{"answers and logits", "512k", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?", "--devices", "cpu:2", "--threads", "1", "--checkpoint-interval", "10ms"}
			ref := t.TempDir()
			refArgs := append([]string{"--output", filepath.Join(ref, "answers.jsonl")}, base...)
			if tc.logits {
				refArgs = append(refArgs, "--logits", filepath.Join(ref, "logits"))
			}
			if code, stderr := runCLI(t, refArgs...); code != exitOK {
				t.Fatalf("reference run exit %d:\n%s", code, stderr)
			}
			want, _ := os.ReadFile(filepath.Join(ref, "answers.jsonl"))

			dir := tmpfs(t, tc.size)
			out := filepath.Join(dir, "answers.jsonl")
			args := append([]string{"--output", out}, base...)
			if tc.logits {
				args = append(args, "--logits", filepath.Join(dir, "logits"))
			}
			code, stderr := runCLI(t, args...)
			msg := lastLine(stderr)
			for _, w := range []string{"no space left on device", dir, "documents are saved", out + ".journal", "free space", "--resume"} {
				if !strings.Contains(msg, w) {
					t.Errorf("the message lacks %q:\n%s", w, msg)
				}
			}
			if code != exitInterrupted {
				t.Fatalf("exit %d on a full disk, want %d:\n%s", code, exitInterrupted, stderr)
			}
			t.Logf("full disk: %s", msg)
			done, size := journalDone(out), journalBytes(out)
			got, _ := os.ReadFile(out)
			if done < 0 || int64(len(got)) < size || !bytes.Equal(got[:size], want[:size]) || (size > 0 && want[size-1] != '\n') {
				t.Fatalf("the journal (%d documents, %d bytes) does not describe the output on disk (%d bytes)", done, size, len(got))
			}

			remount(t, dir, "size=64m")
			if code, stderr := runCLI(t, append(args, "--resume")...); code != exitOK {
				t.Fatalf("resume after freeing space: exit %d:\n%s", code, stderr)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
				t.Fatalf("resumed output (%d bytes) differs from an uninterrupted run (%d bytes)", len(got), len(want))
			}
			if tc.logits {
				checkLogitsOnce(t, filepath.Join(dir, "logits"), 200)
			}

			remount(t, dir, "ro")
			ro := append([]string{"--output", filepath.Join(dir, "new.jsonl"), "--model", filepath.Join(t.TempDir(), "no-model")}, base[2:]...)
			code, stderr = runCLI(t, ro...)
			if code != exitUsage || !strings.Contains(stderr, "read-only file system") || strings.Contains(stderr, "no-model") {
				t.Errorf("a read-only output folder: exit %d, want %d before the model:\n%s", code, exitUsage, stderr)
			}
			remount(t, dir, "rw")
		})
	}
}
