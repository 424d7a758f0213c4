package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// startChild runs qa-shard (this test binary as main) as a separate
// process with the common flags.
func startChild(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--ort-lib", ortLib, "--log-format", "json", "--progress-interval", "1h"}, args...)...)
	cmd.Env = append(os.Environ(), envAsMain+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// journalDone reads how many documents the journal vouches for.
func journalDone(path string) int64 {
	b, err := os.ReadFile(path + ".journal")
	if err != nil {
		return -1
	}
	var st struct{ Done int64 }
	if json.Unmarshal(b, &st) != nil {
		return -1
	}
	return st.Done
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

// TestKillAndResume: SIGKILL at random moments (at random points of
// progress, plus a random delay, so some land mid-write), --resume each
// time; the final output is byte-identical to an uninterrupted run and the
// logits directory holds every window exactly once.
func TestKillAndResume(t *testing.T) {
	const docs, kills = 1200, 10
	r := newResumeRun(t, docs)
	want := r.baseline()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	targets := make([]int64, kills)
	for i := range targets {
		targets[i] = 1 + rng.Int64N(docs*9/10)
	}
	slices.Sort(targets)
	killed := 0
	for _, target := range targets {
		cmd, stderr := startChild(t, r.with("--resume")...)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		waitFor(t, func() bool {
			select {
			case err := <-exited:
				t.Fatalf("run exited (%d) before document %d was saved:\n%s", exitCodeOf(err), target, stderr)
			default:
			}
			return journalDone(r.output) >= target
		})
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := <-exited; exitCodeOf(err) == 0 {
			continue // it finished first: not a kill
		}
		killed++
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("final resume exit %d:\n%s", code, out)
	}
	if killed < kills {
		t.Errorf("only %d of %d runs were killed before finishing (seed %d)", killed, kills, seed)
	}
	got, err := os.ReadFile(r.output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("after %d kills (seed %d, targets %v) the output differs from an uninterrupted run (%d vs %d bytes)", killed, seed, targets, len(got), len(want))
	}
	t.Logf("%d SIGKILLs at documents %v: output %d bytes, identical", killed, targets, len(got))
	checkLogitsOnce(t, r.logits, docs)
}

// checkLogitsOnce: every (document, question, window) appears once, in
// order (files in the order they first appear, then position).
func checkLogitsOnce(t *testing.T, dir string, docs int) {
	t.Helper()
	rows, err := readLogitsDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ file, at, q, w int64 }
	files := map[string]int64{}
	prev := key{-1, -1, -1, -1}
	seen := map[[2]int64]bool{}
	for _, row := range rows {
		if _, ok := files[row.Pos.File]; !ok {
			files[row.Pos.File] = int64(len(files))
		}
		k := key{files[row.Pos.File], row.Pos.At, int64(row.QuestionIndex), int64(row.Window)}
		if less := k.file < prev.file || (k.file == prev.file && (k.at < prev.at || (k.at == prev.at && (k.q < prev.q || (k.q == prev.q && k.w <= prev.w))))); less {
			t.Fatalf("logits row %v after %v: duplicated or out of order", k, prev)
		}
		prev = k
		seen[[2]int64{k.file, k.at}] = true
	}
	if len(seen) != docs {
		t.Errorf("logits cover %d documents, want %d", len(seen), docs)
	}
}

// TestSignalsDrainAndResume: SIGTERM and SIGUSR1 (Slurm's warning) make
// a clean stop with exit 75; --resume completes the job identically.
func TestSignalsDrainAndResume(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGUSR1} {
		t.Run(sig.String(), func(t *testing.T) {
			r := newResumeRun(t, 1200)
			want := r.baseline()
			cmd, stderr := startChild(t, r.with("--max-inflight-mb", "1")...)
			waitFor(t, func() bool { return journalDone(r.output) > 0 })
			cmd.Process.Signal(sig)
			if code := exitCodeOf(cmd.Wait()); code != exitInterrupted {
				t.Fatalf("exit %d after %v, want %d:\n%s", code, sig, exitInterrupted, stderr)
			}
			done := journalDone(r.output)
			if done <= 0 || done >= 1200 {
				t.Fatalf("journal says %d documents after the stop; want a part of 1200", done)
			}
			if !bytes.Contains(stderr.Bytes(), []byte("--resume")) {
				t.Errorf("the stop message does not say how to continue:\n%s", stderr)
			}
			code, out := runCLI(t, r.with("--resume")...)
			if code != exitOK {
				t.Fatalf("resume exit %d:\n%s", code, out)
			}
			got, _ := os.ReadFile(r.output)
			if !bytes.Equal(got, want) {
				t.Fatal("resumed output differs from an uninterrupted run")
			}
			if code, out := runCLI(t, r.with("--resume")...); code != exitOK || !bytes.Contains([]byte(out), []byte("already complete")) {
				t.Errorf("resuming a complete run: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestSecondSignalStopsAtOnce: a second SIGINT does not wait for the
// drain; the journal stays consistent and resuming completes the job.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	r := newResumeRun(t, 1200)
	want := r.baseline()
	cmd, stderr := startChild(t, r.with("--drain-timeout", "1h", "--max-inflight-mb", "1")...)
	waitFor(t, func() bool { return journalDone(r.output) > 0 })
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCodeOf(cmd.Wait()); code != exitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, stderr)
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("resume exit %d:\n%s", code, out)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatal("resumed output differs from an uninterrupted run")
	}
}

// TestResumeRefusesChanges: a changed setting is named, exit 2.
func TestResumeRefusesChanges(t *testing.T) {
	r := newResumeRun(t, 30)
	if code, out := runCLI(t, r.with()...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out := runCLI(t, r.with("--resume", "--max-answer-len", "5")...)
	if code != exitUsage || !bytes.Contains([]byte(out), []byte("settings")) {
		t.Errorf("resume with another setting: exit %d:\n%s", code, out)
	}
	code, out = runCLI(t, r.with()...)
	if code != exitUsage || !bytes.Contains([]byte(out), []byte("--resume")) || !bytes.Contains([]byte(out), []byte("--overwrite")) {
		t.Errorf("rerun without --resume: exit %d:\n%s", code, out)
	}
}

// waitFor polls cond; the deadline only guards against a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
