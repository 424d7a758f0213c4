package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingToAskIsRefusedFirst: with no --question, no --questions-file
// and a first record that asks nothing of its own, the run exits 2 before
// the model is opened (the model folder here does not even exist, and the
// error names the question, not the folder) and writes nothing. A first
// record with a question of its own is enough to start: a later record
// without one becomes an error record (exit 3).
func TestNothingToAskIsRefusedFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-model")
	for name, first := range map[string]string{
		"no question field":      `{"id": 1, "context": "Ada founded it."}`,
		"empty questions":        `{"id": 1, "context": "Ada founded it.", "questions": [], "question": "  "}`,
		"question field is null": `{"id": 1, "context": "Ada founded it.", "question": null}`,
	} {
		t.Run(name, func(t *testing.T) {
			in := writeLines(t, first, `{"id": 2, "context": "Bo founded it.", "question": "Who founded it?"}`)
			out := filepath.Join(t.TempDir(), "answers.jsonl")
			code, stderr := runCLI(t, "--model", missing, "--input", in, "--output", out)
			msg := messages(t, stderr)
			if code != exitUsage || !strings.Contains(msg, "nothing to ask") || !strings.Contains(msg, "--question") || strings.Contains(msg, "not found") {
				t.Fatalf("exit %d, want %d saying there is nothing to ask (before looking at the model):\n%s", code, exitUsage, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the refused run left %s (%v)", out, err)
			}
		})
	}

	in := writeLines(t, `{"id": 1, "context": "Ada founded it.", "questions": ["Who founded it?"]}`, `{"id": 2, "context": "Bo founded it."}`)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--output", out)
	if code != exitRecords {
		t.Fatalf("a first record with a question: exit %d, want %d (the second record an error record):\n%s", code, exitRecords, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"error"`) || strings.Count(string(b), "\n") != 2 {
		t.Errorf("answers:\n%s\nwant an answer, then an error record", b)
	}
}

// TestMissingModelFolderIsNotFound: every subcommand that reads a model
// folder says "not found" with the path when it does not exist, exit 2.
func TestMissingModelFolderIsNotFound(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-model")
	in := writeLines(t, `{"id": 1, "context": "Ada founded it."}`)
	for name, args := range map[string][]string{
		"run":        {"--ort-lib", ortLib, "--model", missing, "--input", in, "--question", "Who?", "--output", filepath.Join(t.TempDir(), "a.jsonl")},
		"tokenize":   {"tokenize", "--model", missing, "Ada founded it."},
		"quantize":   {"quantize", "--ort-lib", ortLib, "--model", missing, "--out", filepath.Join(t.TempDir(), "int8")},
		"bench":      {"bench", "--ort-lib", ortLib, "--model", missing, "--input", in},
		"bench int8": {"bench", "--ort-lib", ortLib, "--model", model(t, "tiny"), "--int8-model", missing, "--input", in},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := capture(t, func() int { return dispatch(args) })
			msg := messages(t, stderr)
			if code != exitUsage || !strings.Contains(msg, "not found") || !strings.Contains(msg, missing) {
				t.Fatalf("exit %d, want %d saying %s is not found:\n%s", code, exitUsage, missing, stderr)
			}
		})
	}
}

// TestConfigOverstatesPositions: a config.json whose
// max_position_embeddings is more than the graph's position table holds
// is refused at the start, exit 2, naming both numbers, before any
// document (else every window past the table fails inside the model with
// ONNX Runtime's own words, as an error record).
func TestConfigOverstatesPositions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	must(t, os.CopyFS(dir, os.DirFS(model(t, "tiny"))))
	cfg := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfg)
	must(t, err)
	must(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), `"max_position_embeddings": 512`, `"max_position_embeddings": 1024`, 1)), 0o644))
	in := writeLines(t, `{"id": 1, "context": "Ada founded it."}`)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--model", dir, "--devices", "sim:1", "--input", in, "--question", "Who?", "--max-seq-len", "600", "--output", out)
	msg := messages(t, stderr)
	if code != exitUsage || !strings.Contains(msg, "max_position_embeddings 1024") || !strings.Contains(msg, "has 512 rows") {
		t.Fatalf("exit %d, want %d naming 1024 and 512:\n%s", code, exitUsage, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused run wrote %s", out)
	}
}
