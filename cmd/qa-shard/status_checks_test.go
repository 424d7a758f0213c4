//go:build testhooks

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/partfolder"
	"qa-shard/shard"
)

// TestStatusChecksOutputs: status calls a run complete only when its
// outputs are, as merge and --resume would find them. Three ranks with
// logits, complete: exit 0, named by the run's --output, a rank's file,
// its journal or its lock file alike. A rank rerun with another question,
// or on another input, is mismatched (exit 2), naming what differs. A
// rank whose answers were truncated or removed after the run is corrupt
// (exit 2). An answer changed in place at the same length, and a logits
// part replaced by another rank's (a whole Parquet file), pass the size
// checks, and --verify finds them against the journal's digests.
func TestStatusChecksOutputs(t *testing.T) {
	dir := t.TempDir()
	in, other := writeCorpus(t, 60, 3), writeCorpus(t, 60, 8)
	out, lg := filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
	rank := func(r int) string { return shard.Path(out, shard.Rank{Rank: r, World: 3}) }
	run := func(r int, input, question string) {
		t.Helper()
		args := []string{"--model", model(t, "tiny"), "--input", input, "--question", question, "--output", out, "--logits", lg,
			"--rank", fmt.Sprint(r), "--world-size", "3", "--devices", "cpu:1", "--threads", "1", "--overwrite"}
		if code, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("rank %d: exit %d\n%s", r, code, stderr)
		}
	}
	status := func(wantCode int, want []string, args ...string) string {
		t.Helper()
		code, stdout := statusOf(t, args...)
		if code != wantCode {
			t.Fatalf("status %v: exit %d, want %d:\n%s", args, code, wantCode, stdout)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("status %v does not say %q:\n%s", args, w, stdout)
			}
		}
		return stdout
	}
	const q = "Who founded the company?"
	for r := range 3 {
		run(r, in, q)
	}
	complete := []string{"total: 3 of 3 ranks complete"}
	status(exitOK, complete, out)
	status(exitOK, complete, rank(1))
	status(exitOK, complete, rank(1)+".journal")
	status(exitOK, complete, rank(2)+".lock")
	status(exitOK, complete, "--verify", filepath.Join(dir, "answers.rank-*.jsonl.journal"))

	run(2, in, "Where is the headquarters?")
	status(exitUsage, []string{"rank 2/3  mismatched", "ran with a different questions than " + rank(0), "2 complete, 1 mismatched"}, out)
	run(2, in, q)
	run(1, other, q)
	status(exitUsage, []string{"rank 1/3  mismatched", "ran with a different input than " + rank(0)}, out)
	run(1, in, q)
	status(exitOK, complete, out)

	answers := mustRead(t, rank(0))
	must(t, os.WriteFile(rank(0), []byte(answers[:len(answers)/2]), 0o644))
	status(exitUsage, []string{"rank 0/3  corrupt", "truncated after the run"}, rank(0)+".journal")
	must(t, os.Remove(rank(0)))
	status(exitUsage, []string{"rank 0/3  corrupt", "is missing"}, out)
	must(t, os.WriteFile(rank(0), []byte(answers), 0o644))
	status(exitOK, complete, out)
	// A score changed in place: the same length and records; the digest
	// finds it.
	if !strings.Contains(answers, `"score":0.`) {
		t.Fatalf("no score to change in %s", rank(0))
	}
	must(t, os.WriteFile(rank(0), []byte(strings.Replace(answers, `"score":0.`, `"score":1.`, 1)), 0o644))
	status(exitOK, complete, out)
	status(exitUsage, []string{"rank 0/3  corrupt", "SHA-256"}, "--verify", out)
	must(t, os.WriteFile(rank(0), []byte(answers), 0o644))

	mine, theirs := partfolder.Path(shard.Path(lg, shard.Rank{Rank: 0, World: 3}), 0), partfolder.Path(shard.Path(lg, shard.Rank{Rank: 1, World: 3}), 0)
	must(t, os.WriteFile(mine, []byte(mustRead(t, theirs)), 0o644))
	status(exitOK, complete, out)
	status(exitUsage, []string{"rank 0/3  corrupt", "written by another run: part-00000.parquet"}, "--verify", out)
}
