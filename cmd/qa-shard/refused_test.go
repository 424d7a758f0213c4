package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leftIn lists what a folder holds.
func leftIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRefusedRunLeavesNothing: a run refused before its first document
// (its --metrics-addr port in use; its --metrics-textfile folder missing)
// exits 2 and leaves no answers file, journal, lock, logits folder or
// metrics address file behind, so the very same command runs once the
// cause is fixed instead of finding an output that "already exists".
func TestRefusedRunLeavesNothing(t *testing.T) {
	in := writeCorpus(t, 5, 3)
	dir := t.TempDir()
	args := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--devices", "cpu:1",
		"--output", filepath.Join(dir, "answers.jsonl"), "--logits", filepath.Join(dir, "logits")}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	portArgs := append(args, "--metrics-addr", l.Addr().String())
	code, stderr := runCLI(t, portArgs...)
	if code != exitUsage || !strings.Contains(stderr, "--metrics-addr") {
		t.Fatalf("port in use: exit %d, want %d naming --metrics-addr:\n%s", code, exitUsage, stderr)
	}
	if left := leftIn(t, dir); len(left) > 0 {
		t.Fatalf("the refused run left %v behind", left)
	}
	must(t, l.Close())
	if code, stderr := runCLI(t, portArgs...); code != exitOK {
		t.Fatalf("the same command with the port free: exit %d:\n%s", code, stderr)
	}

	dir = t.TempDir()
	args[len(args)-3], args[len(args)-1] = filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
	promDir := filepath.Join(dir, "metrics")
	fileArgs := append(args, "--metrics-textfile", filepath.Join(promDir, "qa.prom"))
	code, stderr = runCLI(t, fileArgs...)
	if code != exitUsage || !strings.Contains(stderr, "--metrics-textfile") {
		t.Fatalf("textfile folder missing: exit %d, want %d naming --metrics-textfile:\n%s", code, exitUsage, stderr)
	}
	if left := leftIn(t, dir); len(left) > 0 {
		t.Fatalf("the refused run left %v behind", left)
	}
	must(t, os.Mkdir(promDir, 0o755))
	if code, stderr := runCLI(t, fileArgs...); code != exitOK {
		t.Fatalf("the same command with the folder there: exit %d:\n%s", code, stderr)
	}
}
