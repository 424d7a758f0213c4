//go:build testhooks

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/testing/testmodel"
)

// The model families and the int8 model, SIGKILLed by the kill hook
// (hooks_test.go) at points of progress and resumed.

// TestFamiliesKillAndResume: for every family, runs SIGKILLed at points
// of progress and resumed end with the bytes of an uninterrupted run.
func TestFamiliesKillAndResume(t *testing.T) {
	for _, f := range testmodel.Families {
		t.Run(f.Name, func(t *testing.T) {
			const docs = 300
			r := newResumeRun(t, docs)
			r.args[1] = familyModel(t, f.Name) // after --model
			want := r.baseline()
			killed := 0
			for _, target := range []int64{docs / 3, 2 * docs / 3} {
				if killAfterSaved(t, r.with("--resume"), r.output, target) {
					killed++
				}
			}
			if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
				t.Fatalf("final resume exit %d:\n%s", code, out)
			}
			if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
				t.Fatalf("after %d kills the output (%d bytes) differs from an uninterrupted run (%d bytes)", killed, len(got), len(want))
			}
			checkLogitsOnce(t, r.logits, docs)
		})
	}
}

// TestInt8KillAndResume: runs of the int8 model SIGKILLed at points of
// progress and resumed, with another layout than an uninterrupted run,
// end with the same bytes as that run.
func TestInt8KillAndResume(t *testing.T) {
	const docs = 400
	dir := t.TempDir()
	in := writeCorpus(t, docs, 13)
	want, _ := int8Run(t, in, "--devices", "cpu:1", "--threads", "2")
	r := resumeRun{t: t, output: filepath.Join(dir, "answers.jsonl"), logits: filepath.Join(dir, "logits"),
		args: []string{"--model", int8Model(t), "--input", in, "--question", "Who founded the company?",
			"--devices", "cpu:2", "--threads", "1", "--max-batch-tokens", "1024", "--checkpoint-interval", "50ms"}}
	killed := 0
	for _, target := range []int64{docs / 4, docs / 2, 3 * docs / 4} {
		if killAfterSaved(t, r.with("--resume"), r.output, target) {
			killed++
		}
	}
	if code, out := runCLI(t, r.with("--resume")...); code != exitOK {
		t.Fatalf("final resume exit %d:\n%s", code, out)
	}
	if got, _ := os.ReadFile(r.output); !bytes.Equal(got, want) {
		t.Fatalf("after %d kills the output (%d bytes) differs from an uninterrupted run with another layout (%d bytes)", killed, len(got), len(want))
	}
	checkLogitsOnce(t, r.logits, docs)
	t.Logf("%d of 3 runs killed and resumed; output identical (%d bytes)", killed, len(want))
}
