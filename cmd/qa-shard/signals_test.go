//go:build testhooks

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsStopAtOnce: SIGINT, SIGTERM, SIGHUP and SIGQUIT, sent when document
// 150 is read while every batch from then on holds its replica until the
// run is cancelled, stop the run without waiting for the work read (a
// drain would never end: the test would hang), save the documents done,
// exit 75 with a message in the operator's words, and --resume completes
// the job identically.
func TestSignalsStopAtOnce(t *testing.T) {
	for _, sig := range []string{"INT", "TERM", "HUP", "QUIT"} {
		t.Run(sig, func(t *testing.T) {
			if sig == "HUP" {
				hupReachesChildren(t)
			}
			r := newResumeRun(t, 400)
			want := r.baseline()
			c := startHooked(t, []string{envSignalAt + "=150:" + sig, envHold + "=cancel"}, r.with("--drain-timeout", "1h")...)
			if code := c.exitOrHang(t); code != exitInterrupted {
				t.Fatalf("exit %d after SIG%s, want %d:\n%s", code, sig, exitInterrupted, c.stderr)
			}
			done := journalDone(r.output)
			if done < 0 || done > 150 {
				t.Fatalf("journal says %d documents after a stop at document 150 with its batches held", done)
			}
			// The total is there once the input's lines were counted (a
			// goroutine started with the run: in practice long before
			// document 150, but the order is not promised).
			// (done <= 150: no digit grouping.)
			unit := "documents"
			if done == 1 {
				unit = "document"
			}
			msg := fmt.Sprintf("stopped by SIG%s; %d of 400 documents saved; rerun the same command with --resume", sig, done)
			if other := fmt.Sprintf("stopped by SIG%s; %d %s saved;", sig, done, unit); !strings.Contains(c.stderr.String(), msg) && !strings.Contains(c.stderr.String(), other) {
				t.Errorf("the last line does not say %q:\n%s", msg, c.stderr)
			}
			if strings.Contains(c.stderr.String(), "context canceled") {
				t.Errorf("the operator reads \"context canceled\":\n%s", c.stderr)
			}
			if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
				t.Fatalf("resume exit %d:\n%s", code, out)
			}
			if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
				t.Fatal("resumed output differs from an uninterrupted run")
			}
			checkLogitsOnce(t, r.logits, 400)
		})
	}
}

// hupReachesChildren lets the children this test starts receive SIGHUP
// when the test runs under nohup: a process started with SIGHUP ignored
// keeps it ignored, as qa-shard rightly does (internal/signals tests
// that), and its children inherit the ignoring through exec. A signal
// the test process catches is reset to its default in a child, so the
// test catches SIGHUP (and drops it) while it runs.
func hupReachesChildren(t *testing.T) {
	if !signal.Ignored(syscall.SIGHUP) {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	t.Cleanup(func() { signal.Stop(ch) })
}

// TestUSR1Drains: SIGUSR1 (Slurm's warning) stops reading and finishes
// every document read before saving; --resume completes the job.
func TestUSR1Drains(t *testing.T) {
	r := newResumeRun(t, 400)
	want := r.baseline()
	c := startHooked(t, []string{envSignalAt + "=150:USR1"}, r.with()...)
	if code := c.exit(); code != exitInterrupted {
		t.Fatalf("exit %d after SIGUSR1, want %d:\n%s", code, exitInterrupted, c.stderr)
	}
	// Document 150 itself is saved unless the stop won the race to hand
	// it to the pipeline.
	if done := journalDone(r.output); done != 150 && done != 151 {
		t.Fatalf("journal says %d documents after a drain at document 150", done)
	}
	if !strings.Contains(c.stderr.String(), "stopped by SIGUSR1; ") || !strings.Contains(c.stderr.String(), "--resume") {
		t.Errorf("the stop message does not say what stopped the run and how to continue:\n%s", c.stderr)
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("resume exit %d:\n%s", code, out)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatal("resumed output differs from an uninterrupted run")
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK || !strings.Contains(out, "already complete") {
		t.Errorf("resuming a complete run: exit %d:\n%s", code, out)
	}
}

// TestSecondSignal: a SIGINT during a SIGUSR1 drain that cannot end
// stops the run (exit 75, saved); a second SIGINT while the stop itself
// cannot end (a device that ignores cancellation) ends the process at
// once, and the journal's last checkpoint still resumes identically.
func TestSecondSignal(t *testing.T) {
	t.Run("INT after USR1", func(t *testing.T) {
		r := newResumeRun(t, 400)
		c := startHooked(t, []string{envSignalAt + "=150:USR1,INT", envHold + "=cancel"}, r.with("--drain-timeout", "1h")...)
		if code := c.exit(); code != exitInterrupted || !strings.Contains(c.stderr.String(), "stopped by SIGINT; ") {
			t.Fatalf("exit %d, want %d, stopped by SIGINT:\n%s", code, exitInterrupted, c.stderr)
		}
		resumeIdentical(t, r)
	})
	t.Run("INT twice at once", func(t *testing.T) {
		// coreutils timeout, scancel and srun signal the process and
		// its group: one SIGINT, delivered twice, is one stop.
		r := newResumeRun(t, 400)
		c := startHooked(t, []string{envSignalAt + "=150:INT*2", envHold + "=cancel"}, r.with("--drain-timeout", "1h")...)
		if code := c.exitOrHang(t); code != exitInterrupted || !strings.Contains(c.stderr.String(), "stopped by SIGINT; ") {
			t.Fatalf("exit %d, want %d, stopped by SIGINT:\n%s", code, exitInterrupted, c.stderr)
		}
		resumeIdentical(t, r)
	})
	t.Run("INT twice", func(t *testing.T) {
		r := newResumeRun(t, 400)
		c := startHooked(t, []string{envSignalAt + "=150:INT,INT", envHold + "=stuck"}, r.with("--drain-timeout", "1h")...)
		err := c.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Fatalf("the second SIGINT did not end the process at once: %v\n%s", err, c.stderr)
		}
		if !strings.Contains(c.stderr.String(), "send it again to end at once") {
			t.Errorf("the first SIGINT did not say what a second one does:\n%s", c.stderr)
		}
		if done := journalDone(r.output); done < 0 || done > 150 {
			t.Fatalf("journal says %d documents", done)
		}
		resumeIdentical(t, r)
	})
}

// exitOrHang is exit, failing the test when the process has not ended
// after three minutes: a stop that waits for held work never would.
func (c *child) exitOrHang(t *testing.T) int {
	t.Helper()
	c.stdin.Close()
	ended := make(chan error, 1)
	go func() { ended <- c.Wait() }()
	select {
	case err := <-ended:
		return exitCodeOf(err)
	case <-time.After(3 * time.Minute):
		c.Process.Kill()
		t.Fatalf("the stop did not end within three minutes: it waits for the work in flight:\n%s", c.stderr)
		return -1
	}
}

func resumeIdentical(t *testing.T, r resumeRun) {
	t.Helper()
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("resume exit %d:\n%s", code, out)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, r.baseline()) {
		t.Fatal("resumed output differs from an uninterrupted run")
	}
}

// TestHelpSignals: --help's Signals section and docs/resume.md (the
// README's page on stopping and resuming) name every signal the run
// handles, and say that one delivered twice counts once.
func TestHelpSignals(t *testing.T) {
	help := runHelp()
	_, section, ok := strings.Cut(help, "Signals:")
	if !ok {
		t.Fatal("--help has no Signals section")
	}
	page := mustRead(t, "../../docs/resume.md")
	for _, s := range []string{"SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "--drain-timeout", "counts once", "--resume"} {
		if !strings.Contains(section, s) {
			t.Errorf("--help's Signals section does not mention %s:\n%s", s, section)
		}
		if !strings.Contains(page, s) {
			t.Errorf("docs/resume.md does not mention %s", s)
		}
	}
}
