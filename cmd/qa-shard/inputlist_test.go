//go:build testhooks

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeNamesAddedInputFile: a run over an input folder is stopped;
// a file is added to the folder and another removed; --resume refuses
// (exit 2) and names both files, not only the fingerprints' hashes.
func TestResumeNamesAddedInputFile(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "in")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		b, err := os.ReadFile(writeCorpus(t, 30, 4))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "answers.jsonl")
	args := []string{"--model", model(t, "tiny"), "--input", folder, "--question", "Who founded it?", "--output", out, "--devices", "cpu:1"}
	c := startHooked(t, []string{envSignalAt + "=20:INT"}, args...)
	if code := c.exit(); code != exitInterrupted {
		t.Fatalf("stopped run: exit %d, want %d:\n%s", code, exitInterrupted, c.stderr)
	}
	if err := os.Rename(filepath.Join(folder, "b.jsonl"), filepath.Join(folder, "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	code, stderr := runCLI(t, append(args, "--resume")...)
	if code != exitUsage {
		t.Fatalf("resume after the folder changed: exit %d, want %d:\n%s", code, exitUsage, stderr)
	}
	for _, want := range []string{"b.jsonl is gone", "c.jsonl was added"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, stderr)
		}
	}
	if l := find(jsonLines(t, stderr), "changed"); l != nil {
		t.Logf("the refusal: %s", l["msg"])
	}
}
