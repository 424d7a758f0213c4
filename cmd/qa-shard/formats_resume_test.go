//go:build testhooks

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFormatsKillAndResume: over a .jsonl.zst, a .parquet, a .jsonl.gz
// and a .jsonl input, each answers format is SIGKILLed at three points of progress and
// resumed: the result is an uninterrupted run's (the same bytes for JSONL,
// the same text for gzip and zstd, the same rows for Parquet), and the
// logits hold every window once.
func TestFormatsKillAndResume(t *testing.T) {
	const docs = 300
	in := mixedInput(t, docs)
	args := append([]string{"--model", model(t, "tiny"), "--question", "Who founded it?", "--keep-fields", "url",
		"--devices", "sim:2:rate=60000", "--max-batch-tokens", "2048", "--checkpoint-interval", "30ms"}, in...)
	base := filepath.Join(t.TempDir(), "base.jsonl")
	if code, stderr := runCLI(t, append([]string{"--output", base}, args...)...); code != exitOK {
		t.Fatalf("baseline exit %d:\n%s", code, stderr)
	}
	want := answerRecords(t, base)
	for _, name := range []string{"answers.jsonl", "answers.jsonl.gz", "answers.jsonl.zst", "answers.parquet"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out, lg := filepath.Join(dir, name), filepath.Join(dir, "logits")
			a := append([]string{"--output", out, "--logits", lg, "--resume"}, args...)
			killed := 0
			for _, target := range []int64{20, 110, 210} {
				if killAfterSaved(t, a, out, target) {
					killed++
				}
			}
			if code, stderr := runCLI(t, a...); code != exitOK {
				t.Fatalf("final resume exit %d:\n%s", code, stderr)
			}
			if got := answerRecords(t, out); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("after %d kills: %d records differ from an uninterrupted run's %d: %s", killed, len(got), len(want), firstDiff(got, want))
			}
			if !strings.HasSuffix(name, ".parquet") {
				b, _ := os.ReadFile(base)
				if !bytes.Equal(answerText(t, out), b) {
					t.Fatal("the resumed text differs from an uninterrupted run's")
				}
			}
			checkLogitsOnce(t, lg, docs)
			t.Logf("%s: %d of 3 runs killed; identical after resume", name, killed)
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "record " + strconv.Itoa(i) + ":\n got " + got[i] + "\nwant " + want[i]
		}
	}
	return "one is a prefix of the other"
}

// killAfterSaved runs until document target, where the run SIGKILLs
// itself (the kill hook, hooks_test.go: the journal vouches for exactly
// target documents and a record was handed to the answers behind it); it
// fails the test unless that is how the run ended, and reports true.
func killAfterSaved(t *testing.T, args []string, out string, target int64) bool {
	t.Helper()
	c := startHooked(t, []string{fmt.Sprintf("%s=%d", envKillAt, target)}, args...)
	err := c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("run aimed at document %d ended with %v, not SIGKILL:\n%s", target, err, c.stderr)
	}
	if done := journalDone(out); done != target {
		t.Fatalf("killed at document %d, the journal says %d", target, done)
	}
	return true
}
