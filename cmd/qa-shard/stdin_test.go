//go:build testhooks

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startStdin starts a hooked qa-shard reading corpus on standard input.
func startStdin(t *testing.T, corpus []byte, env []string, args ...string) *child {
	t.Helper()
	c := startHooked(t, env, args...)
	w := &fed{WriteCloser: c.stdin, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_, _ = w.WriteCloser.Write(corpus) // fails once the process stopped reading: fine
		w.WriteCloser.Close()
	}()
	c.stdin = w
	return c
}

// fed is a child's standard input being fed: closing it waits until all
// was written (or the child stopped reading).
type fed struct {
	io.WriteCloser
	done chan struct{}
}

func (f *fed) Close() error { <-f.done; return nil }

// TestStdinResume: a run reading standard input that was stopped resumes
// when the same stream is replayed: the journal's SHA-256 of the text read
// before the resume point proves it is the same, the done part is skipped,
// and the output is the uninterrupted run's. Another stream is refused.
func TestStdinResume(t *testing.T) {
	r := newResumeRun(t, 400)
	corpus, err := os.ReadFile(r.args[3])
	if err != nil || r.args[2] != "--input" {
		t.Fatalf("the run's corpus: %v %v", r.args[2:4], err)
	}
	r.args[3] = "-"
	base := filepath.Join(t.TempDir(), "base.jsonl")
	c := startStdin(t, corpus, nil, append([]string{"--output", base}, r.args...)...)
	if code := c.exit(); code != exitOK {
		t.Fatalf("baseline from standard input: exit %d:\n%s", code, c.stderr)
	}
	want, _ := os.ReadFile(base)

	// A drain, so that the journal vouches for the documents before 150.
	c = startStdin(t, corpus, []string{envSignalAt + "=150:USR1"}, r.with()...)
	if code := c.exit(); code != exitInterrupted || !strings.Contains(c.stderr.String(), "rerun the same command with --resume") {
		t.Fatalf("stop: exit %d, want %d and a resume hint:\n%s", code, exitInterrupted, c.stderr)
	}
	if done := journalDone(r.output); done != 150 && done != 151 {
		t.Fatalf("journal says %d documents after a drain at document 150", done)
	}

	other := bytes.Replace(corpus, []byte("a"), []byte("b"), 1) // the first record differs
	c = startStdin(t, other, nil, r.with("--resume")...)
	if code := c.exit(); code != exitUsage || !strings.Contains(c.stderr.String(), "standard input: its first") {
		t.Fatalf("resume with another stream: exit %d, want %d naming standard input:\n%s", code, exitUsage, c.stderr)
	}

	c = startStdin(t, corpus, nil, r.with("--resume")...)
	if code := c.exit(); code != exitOK {
		t.Fatalf("resume with the same stream: exit %d:\n%s", code, c.stderr)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatal("the resumed output differs from an uninterrupted run")
	}
	checkLogitsOnce(t, r.logits, 400)
}

// TestStdoutStopOffersNoResume: a run to standard output keeps no journal,
// so its stop message does not offer a --resume that cannot work.
func TestStdoutStopOffersNoResume(t *testing.T) {
	r := newResumeRun(t, 400)
	c := startHooked(t, []string{envSignalAt + "=150:INT", envHold + "=cancel"}, append([]string{"--output", "-"}, r.args...)...)
	if code := c.exitOrHang(t); code != exitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, c.stderr)
	}
	if s := c.stderr.String(); strings.Contains(s, "--resume") || !strings.Contains(s, "standard output cannot be resumed") {
		t.Errorf("the stop message of a run to standard output:\n%s", s)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(r.output), "*journal*")); len(m) > 0 {
		t.Errorf("a run to standard output wrote %v", m)
	}
}
