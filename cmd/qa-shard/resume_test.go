//go:build testhooks

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// child is a qa-shard process with test hooks (hooks_test.go) set by env.
type child struct {
	*exec.Cmd
	stderr *lockedBuffer
	stdin  io.WriteCloser // closing it releases a pause (envPauseAt)
}

// lockedBuffer is a child's standard error: written by the process's
// copier while the test reads it (waitFor).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits until the child's standard error holds s; after three
// minutes without it (a hang, not a slow machine) the test fails.
func (c *child) waitFor(t *testing.T, s string) {
	t.Helper()
	for end := time.Now().Add(3 * time.Minute); !strings.Contains(c.stderr.String(), s); {
		if time.Now().After(end) {
			c.Process.Kill()
			t.Fatalf("the child did not print %q within three minutes:\n%s", s, c.stderr)
		}
		time.Sleep(10 * time.Millisecond) // a poll of what the child printed, not a wait for time to pass
	}
}

func startHooked(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	c, _ := startHookedPipe(t, false, env, args...)
	return c
}

// startHookedPipe is startHooked with the child's standard output on a
// pipe the test reads (when stdout is true).
func startHookedPipe(t *testing.T, stdout bool, env []string, args ...string) (*child, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--ort-lib", ortLib, "--log-format", "json", "--progress-interval", "1h"}, args...)...)
	cmd.Env = append(append(os.Environ(), envAsMain+"=1"), env...)
	c := &child{Cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	var out io.ReadCloser
	if stdout {
		if out, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stdin.Close(); cmd.Process.Kill() })
	return c, out
}

// exit waits for the process and returns its exit code (-1 if a signal
// ended it).
func (c *child) exit() int {
	c.stdin.Close()
	return exitCodeOf(c.Wait())
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

type resumeRun struct {
	t      *testing.T
	args   []string
	output string
	logits string
}

func newResumeRun(t *testing.T, docs int) resumeRun {
	dir := t.TempDir()
	in := writeCorpus(t, docs, 11)
	return resumeRun{t: t, output: filepath.Join(dir, "answers.jsonl"), logits: filepath.Join(dir, "logits"),
		args: []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?",
			"--devices", "cpu:2", "--threads", "1", "--max-batch-tokens", "1024", "--checkpoint-interval", "50ms"}}
}

func (r resumeRun) with(extra ...string) []string {
	return append(append([]string{"--output", r.output, "--logits", r.logits}, r.args...), extra...)
}

// baseline is an uninterrupted run of the same job elsewhere.
func (r resumeRun) baseline() []byte {
	out := filepath.Join(r.t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(r.t, append([]string{"--output", out}, r.args...)...)
	if code != exitOK {
		r.t.Fatalf("baseline exit %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// TestKillAndResume: SIGKILL at ten random documents, each time after
// the journal was checkpointed just before that document and the
// document's record was flushed behind it (so every resume has a tail to
// cut off), --resume each time; every kill lands where it was aimed (the
// kill points are progress, not time), and the final output is
// byte-identical to an uninterrupted run with every window's logits once.
func TestKillAndResume(t *testing.T) {
	const docs, kills = 1200, 10
	r := newResumeRun(t, docs)
	want := r.baseline()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	targets := make([]int64, kills)
	for i := range targets {
		targets[i] = 1 + rng.Int64N(docs-2)
	}
	slices.Sort(targets)
	for _, target := range targets {
		c := startHooked(t, []string{fmt.Sprintf("%s=%d", envKillAt, target)}, r.with("--resume")...)
		err := c.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("run aimed at document %d ended with %v, not SIGKILL (seed %d):\n%s", target, err, seed, c.stderr)
		}
		if _, err := os.Stat(r.output + ".lock"); err != nil {
			t.Fatalf("the killed run left no lock file for the next one to take over: %v", err)
		}
		if done := journalDone(r.output); done != target {
			t.Fatalf("killed at document %d, the journal says %d (seed %d)", target, done, seed)
		}
		if st, _ := os.Stat(r.output); st == nil || st.Size() <= journalBytes(r.output) {
			t.Fatalf("no record behind the journal at the kill (seed %d)", seed)
		}
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("final resume exit %d:\n%s", code, out)
	}
	got, err := os.ReadFile(r.output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("after %d kills (seed %d, targets %v) the output differs from an uninterrupted run (%d vs %d bytes)", kills, seed, targets, len(got), len(want))
	}
	t.Logf("%d SIGKILLs at documents %v: output %d bytes, identical", kills, targets, len(got))
	checkLogitsOnce(t, r.logits, docs)
}

// TestResumeRefusesChanges: a changed setting is named with its old and
// new value, exit 2.
func TestResumeRefusesChanges(t *testing.T) {
	r := newResumeRun(t, 30)
	if code, out := runCLI(t, r.with()...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out := runCLI(t, r.with("--resume", "--max-answer-len", "5")...)
	if code != exitUsage || !bytes.Contains([]byte(out), []byte("the settings changed (--max-answer-len was 15, now 5)")) {
		t.Errorf("resume with another setting: exit %d:\n%s", code, out)
	}
	code, out = runCLI(t, r.with()...)
	if code != exitUsage || !bytes.Contains([]byte(out), []byte("--resume")) || !bytes.Contains([]byte(out), []byte("--overwrite")) {
		t.Errorf("rerun without --resume: exit %d:\n%s", code, out)
	}
}

// waitFor polls cond (a state of progress); the deadline only guards
// against a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within three minutes: a hang")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
