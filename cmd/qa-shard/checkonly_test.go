package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testmodel"
)

// checkRun runs `qa-shard --check` as its own process with an ONNX
// Runtime library that does not exist, so a check that needed the runtime
// would fail, and an empty Hub cache; it returns the exit code and
// standard error.
func checkRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--check", "--log-format", "json", "--ort-lib", filepath.Join(t.TempDir(), "no-libonnxruntime.so")}, args...)...)
	cmd.Env = append(os.Environ(), envAsMain+"=1", "HF_HUB_CACHE="+t.TempDir(), "HF_HUB_OFFLINE=1")
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// TestCheckOnly: --check says whether a run would start without ONNX
// Runtime, devices or the network, and writes nothing: an ONNX export and
// a checkpoint folder (whose weights are checked against its config.json,
// not built) pass; a Hub id not in the cache passes with a word that the
// run downloads it; each thing a run would refuse before its first
// document is refused with exit 2 and the run's own message.
func TestCheckOnly(t *testing.T) {
	in := writeCorpus(t, 5, 91)
	ck := filepath.Join(checkpoints(t), testmodel.Checkpoints[0].Name)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "answers.jsonl")
	for _, tc := range []struct {
		name  string
		model string
		want  string
	}{
		{"export", model(t, "tiny"), `"model_kind":"ONNX export"`},
		{"checkpoint", ck, "checkpoint (safetensors"},
		{"hub id", "example-org/not-cached-anywhere", "not in the Hub cache here: the run downloads it"},
	} {
		code, stderr := checkRun(t, "--model", tc.model, "--input", in, "--question", "Who?", "--output", out)
		if code != exitOK || !strings.Contains(stderr, "check passed") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 0 and %q:\n%s", tc.name, code, tc.want, stderr)
		}
	}
	if left, _ := os.ReadDir(outDir); len(left) != 0 {
		t.Errorf("--check wrote %d files beside --output", len(left))
	}

	noQA := filepath.Join(t.TempDir(), "no-qa-head")
	must(t, os.CopyFS(noQA, os.DirFS(ck)))
	cfg, err := os.ReadFile(filepath.Join(noQA, "config.json"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(noQA, "config.json"), []byte(strings.Replace(string(cfg), `"hidden_size": 32`, `"hidden_size": 64`, 1)), 0o644))
	existing := filepath.Join(t.TempDir(), "answers.jsonl")
	must(t, os.WriteFile(existing, []byte("{}\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no such model", []string{"--model", filepath.Join(t.TempDir(), "missing")}, "not found"},
		{"weights against config.json", []string{"--model", noQA}, "config.json implies"},
		{"output exists", []string{"--model", model(t, "tiny"), "--output", existing}, "add --overwrite"},
		{"question too long", []string{"--model", model(t, "tiny"), "--max-seq-len", "16", "--doc-stride", "4", "--question", strings.Repeat("why ", 20)}, "leaves no room"},
		{"no input", []string{"--model", model(t, "tiny"), "--input", filepath.Join(t.TempDir(), "none.jsonl")}, "none.jsonl"},
	} {
		args := append([]string{"--input", in, "--question", "Who?", "--output", out}, tc.args...)
		code, stderr := checkRun(t, args...)
		if code != exitUsage || !strings.Contains(messages(t, stderr), tc.want) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s", tc.name, code, exitUsage, tc.want, stderr)
		}
	}
}
