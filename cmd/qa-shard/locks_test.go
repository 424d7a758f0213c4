//go:build testhooks

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"qa-shard/internal/filelock"
)

// pauseAt holds a child at document 40 (and its locks with it) until its
// standard input closes.
var pauseAt = []string{envPauseAt + "=40"}

// heldMessage checks a refusal: exit 2, naming the lock file and the
// holder's pid and host.
func heldMessage(t *testing.T, what string, code int, stderr, lock string, pid int) {
	t.Helper()
	host, _ := os.Hostname()
	for _, want := range []string{lock, fmt.Sprintf("pid %d on host %s", pid, host), "another qa-shard"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("%s: the refusal lacks %q:\n%s", what, want, stderr)
		}
	}
	if code != exitUsage {
		t.Errorf("%s: exit %d, want %d:\n%s", what, code, exitUsage, stderr)
	}
}

// TestConcurrentRunsOneWins: four runs started at once on one output
// (--resume, as a requeued job and its predecessor would be): exactly one
// writes; each other one exits 2 on its own (the winner is held at a
// document, so a refusal cannot be waiting for it), naming the lock file
// and the winner; the output is the uninterrupted run's.
func TestConcurrentRunsOneWins(t *testing.T) {
	r := newResumeRun(t, 200)
	want := r.baseline()
	const n = 4
	type result struct {
		c    *child
		code int
		wall time.Duration
	}
	children := make([]*child, n)
	exited := make(chan result, n)
	for i := range children {
		start := time.Now()
		children[i] = startHooked(t, pauseAt, r.with("--resume")...)
		go func(c *child) { code := exitCodeOf(c.Wait()); exited <- result{c, code, time.Since(start)} }(children[i])
	}
	var losers []result
	for range n - 1 {
		losers = append(losers, <-exited)
	}
	var winner *child
	for _, c := range children {
		if !slices.ContainsFunc(losers, func(l result) bool { return l.c == c }) {
			winner = c
		}
	}
	for _, l := range losers {
		heldMessage(t, "a concurrent run", l.code, l.c.stderr.String(), r.output+".lock", winner.Process.Pid)
		t.Logf("refused in %s: %s", l.wall.Round(time.Millisecond), lastLine(l.c.stderr.String()))
	}
	winner.stdin.Close()
	if res := <-exited; res.code != exitOK {
		t.Fatalf("the winner exit %d:\n%s", res.code, res.c.stderr)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatal("the output differs from an uninterrupted run")
	}
	if _, err := os.Stat(r.output + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file after the run: %v", err)
	}
}

// TestHeldOutputRefusesEverything: while a run holds its output,
// --overwrite, --resume, a plain run and a run sharing only the logits
// folder are refused before any model is loaded (the model path is
// bogus), and the holder's files are untouched; released, it completes.
func TestHeldOutputRefusesEverything(t *testing.T) {
	r := newResumeRun(t, 200)
	want := r.baseline()
	holder := startHooked(t, pauseAt, r.with()...)
	// The lock is taken before the model loads, and the journal is written
	// after it: once the journal exists the lock is held.
	waitFor(t, func() bool { return journalDone(r.output) >= 0 })
	other := filepath.Join(t.TempDir(), "other.jsonl")
	for _, tc := range []struct{ name, output string }{
		{"--overwrite", r.output}, {"--resume", r.output}, {"", r.output}, {"same --logits", other},
	} {
		args := []string{"--output", tc.output, "--logits", r.logits, "--model", filepath.Join(t.TempDir(), "no-model"), "--input", r.args[3], "--question", "Who?"}
		if strings.HasPrefix(tc.name, "--") {
			args = append(args, tc.name)
		}
		code, stderr := runCLI(t, args...)
		lock := r.output + ".lock"
		if tc.output == other {
			lock = r.logits + ".lock"
		}
		heldMessage(t, "run "+tc.name, code, stderr, lock, holder.Process.Pid)
		if strings.Contains(stderr, "no-model") {
			t.Errorf("run %s looked at the model before the lock:\n%s", tc.name, stderr)
		}
	}
	if code := holder.exit(); code != exitOK {
		t.Fatalf("holder exit %d:\n%s", code, holder.stderr)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatal("the holder's output differs from an uninterrupted run")
	}
}

// TestRanksLockTheirOwnFiles: a rank held mid-run does not block the
// other rank (distinct files), but blocks a second copy of itself and a
// merge of the rank files; once it ends, the merge equals one process.
func TestRanksLockTheirOwnFiles(t *testing.T) {
	dir := t.TempDir()
	in := writeCorpus(t, 60, 23)
	common := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded it?", "--devices", "cpu", "--world-size", "2"}
	out := filepath.Join(dir, "answers.jsonl")
	single := filepath.Join(dir, "single.jsonl")
	if code, stderr := runCLI(t, append([]string{"--output", single, "--world-size", "1"}, common[:len(common)-2]...)...); code != exitOK {
		t.Fatalf("single exit %d:\n%s", code, stderr)
	}
	rank0 := startHooked(t, []string{envPauseAt + "=5"}, append([]string{"--rank", "0", "--output", out}, common...)...)
	file0 := filepath.Join(dir, "answers.rank-00000-of-00002.jsonl")
	waitFor(t, func() bool { return journalDone(file0) >= 0 })
	if code, stderr := runCLI(t, append([]string{"--rank", "1", "--output", out}, common...)...); code != exitOK {
		t.Fatalf("rank 1 while rank 0 runs: exit %d:\n%s", code, stderr)
	}
	code, stderr := runCLI(t, append([]string{"--rank", "0", "--output", out, "--resume"}, common...)...)
	heldMessage(t, "a second rank 0", code, stderr, file0+".lock", rank0.Process.Pid)
	file1 := filepath.Join(dir, "answers.rank-00001-of-00002.jsonl")
	merged := filepath.Join(dir, "merged.jsonl")
	code, _, stderr = capture(t, func() int { return dispatch([]string{"merge", "--output", merged, file0, file1}) })
	heldMessage(t, "merge while rank 0 runs", code, stderr, file0+".lock", rank0.Process.Pid)
	if code := rank0.exit(); code != exitOK {
		t.Fatalf("rank 0 exit %d:\n%s", code, rank0.stderr)
	}
	// A merge whose output another process holds is refused too.
	l, err := filelock.Acquire(merged, "a test holding the merged output")
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = capture(t, func() int { return dispatch([]string{"merge", "--output", merged, file0, file1}) })
	heldMessage(t, "merge onto a held output", code, stderr, merged+".lock", os.Getpid())
	l.Release()
	if code, _, stderr := capture(t, func() int { return dispatch([]string{"merge", "--output", merged, file0, file1}) }); code != exitOK {
		t.Fatalf("merge exit %d:\n%s", code, stderr)
	}
	a, _ := os.ReadFile(single)
	b, _ := os.ReadFile(merged)
	if !bytes.Equal(a, b) {
		t.Fatal("merged ranks differ from the single-process output")
	}
}

// TestUnwritableOutputBeforeModel: an output folder that is missing, a
// file, or read-only exits 2, naming it, before the model is looked at.
func TestUnwritableOutputBeforeModel(t *testing.T) {
	in := writeLines(t, `{"id": 1, "context": "Ada founded the company."}`)
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o644))
	outs := []string{filepath.Join(file, "answers.jsonl"), filepath.Join(t.TempDir(), "missing", "answers.jsonl")}
	if os.Geteuid() != 0 { // root writes anywhere; make storage-test covers a read-only mount
		ro := t.TempDir()
		must(t, os.Chmod(ro, 0o555))
		t.Cleanup(func() { must(t, os.Chmod(ro, 0o755)) })
		outs = append(outs, filepath.Join(ro, "answers.jsonl"))
	}
	for _, out := range outs {
		for _, lock := range []string{"", "--no-lock"} {
			args := []string{"--model", filepath.Join(t.TempDir(), "no-model"), "--input", in, "--question", "Who?", "--output", out}
			if lock != "" {
				args = append(args, lock)
			}
			code, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, out) || !strings.Contains(stderr, "must exist and be writable") || strings.Contains(stderr, "no-model") {
				t.Errorf("--output %s %s: exit %d, want %d naming the output before the model:\n%s", out, lock, code, exitUsage, stderr)
			}
		}
	}
}
