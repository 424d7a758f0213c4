//go:build testhooks

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// statusOf runs qa-shard status in-process and returns its exit code and
// standard output.
func statusOf(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, stdout, _ := capture(t, func() int { return dispatch(append([]string{"status"}, args...)) })
	return code, stdout
}

// TestStatus: a split run's ranks as they go through their states, read by
// qa-shard status without disturbing them: a rank held mid-run by a hook
// is running (and stays running: status takes no lock), a rank killed is
// stopped and resumable, a rank whose journal is gone is missing and one
// whose journal was edited is corrupt; complete when both finish. Exit
// codes: 75 while a rank is not complete, 2 with one missing or corrupt, 0
// when all are complete. --json gives the same states.
func TestStatus(t *testing.T) {
	dir := t.TempDir()
	in := writeCorpus(t, 200, 3)
	out := filepath.Join(dir, "answers.jsonl")
	rankArgs := func(r int) []string {
		return []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?", "--output", out,
			"--rank", fmt.Sprint(r), "--world-size", "2", "--devices", "cpu:1", "--threads", "1", "--checkpoint-interval", "50ms"}
	}
	if code, stderr := runCLI(t, rankArgs(0)...); code != exitOK {
		t.Fatalf("rank 0: exit %d\n%s", code, stderr)
	}
	rank1 := rankOutput(out, 1)
	if code, stdout := statusOf(t, out); code != exitUsage || !strings.Contains(stdout, "rank 1/2  missing") || !strings.Contains(stdout, "rank 0/2  complete") {
		t.Fatalf("rank 1 not started: exit %d, want %d:\n%s", code, exitUsage, stdout)
	}
	// Rank 1 held at document 40, its lock taken, its journal written.
	c := startHooked(t, []string{envPauseAt + "=40"}, rankArgs(1)...)
	waitForJournal(t, c, rank1)
	code, stdout := statusOf(t, out)
	host, _ := os.Hostname()
	if code != exitInterrupted || !strings.Contains(stdout, "rank 1/2  running") || !strings.Contains(stdout, fmt.Sprintf("on %s, pid %d", host, c.Process.Pid)) {
		t.Fatalf("rank 1 held: exit %d, want %d, running with its pid:\n%s", code, exitInterrupted, stdout)
	}
	if !strings.Contains(stdout, "total: 1 of 2 ranks complete (1 complete, 1 running)") {
		t.Errorf("no total line:\n%s", stdout)
	}
	if code, stdout := statusOf(t, "--json", filepath.Join(dir, "answers.rank-*.jsonl")); code != exitInterrupted || statesOf(t, stdout) != "complete running" {
		t.Errorf("--json with a glob: exit %d, states %q:\n%s", code, statesOf(t, stdout), stdout)
	}
	// Killed while held: its lock file stays behind, unlocked.
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait() // killed: its exit status says nothing
	if code, stdout := statusOf(t, out); code != exitInterrupted || !strings.Contains(stdout, "rank 1/2  stopped") || !strings.Contains(stdout, "--resume") {
		t.Fatalf("rank 1 killed: exit %d:\n%s", code, stdout)
	}
	// Resumed to the end: both complete.
	if code, stderr := runCLI(t, append(rankArgs(1), "--resume")...); code != exitOK {
		t.Fatalf("rank 1 resumed: exit %d\n%s", code, stderr)
	}
	if code, stdout := statusOf(t, out); code != exitOK || !strings.Contains(stdout, "total: 2 of 2 ranks complete") {
		t.Fatalf("both complete: exit %d:\n%s", code, stdout)
	}
	// Damaged: a journal edited, then removed.
	j := rank1 + ".journal"
	b, err := os.ReadFile(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(j, []byte(strings.Replace(string(b), `"done":`, `"done": 1`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout := statusOf(t, out); code != exitUsage || !strings.Contains(stdout, "rank 1/2  corrupt") {
		t.Fatalf("journal edited: exit %d:\n%s", code, stdout)
	}
	if code, _ := statusOf(t, filepath.Join(dir, "nothing.jsonl")); code != exitUsage {
		t.Errorf("no run there: exit %d, want %d", code, exitUsage)
	}
	if code, _ := statusOf(t); code != exitUsage {
		t.Errorf("no argument: exit %d, want %d", code, exitUsage)
	}
}

// waitForJournal waits until the child has created its journal (it does
// so when it opens its outputs, before the hook holds it at document 40),
// giving up after a minute.
func waitForJournal(t *testing.T, c *child, output string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for journalDone(output) < 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no journal at %s after a minute:\n%s", output, c.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// statesOf lists the states of status --json's rank objects, in order.
func statesOf(t *testing.T, stdout string) string {
	t.Helper()
	var states []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var o struct {
			State string
			Total bool
		}
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("not JSON: %q: %v", sc.Text(), err)
		}
		if !o.Total {
			states = append(states, o.State)
		}
	}
	return strings.Join(states, " ")
}
