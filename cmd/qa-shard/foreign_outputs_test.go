package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOverwriteLeavesForeignFoldersAlone: --overwrite replaces only what
// qa-shard wrote. An answers folder holding another tool's Parquet output
// (a Spark job's part-*-<uuid>.snappy.parquet and _SUCCESS) and a --logits
// folder holding a model's files are refused before any work, exit 2,
// naming the files, and every file in them is left as it was, whether or
// not some of qa-shard's own parts sit among them.
func TestOverwriteLeavesForeignFoldersAlone(t *testing.T) {
	in := writeLines(t, `{"id": 1, "context": "Ada founded the company."}`)
	for _, tc := range []struct {
		name, flag string
		files      []string
	}{
		{"spark answers", "--output", []string{"part-00000-8b4e-c000.snappy.parquet", "part-00001-8b4e-c000.snappy.parquet", "_SUCCESS"}},
		{"answers mixed with qa-shard parts", "--output", []string{"part-00000.parquet", "part-00000-8b4e-c000.snappy.parquet"}},
		{"model folder as logits", "--logits", []string{"config.json", "model.onnx", "vocab.txt", "part-00000.parquet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "out.parquet")
			must(t, os.Mkdir(target, 0o755))
			for _, f := range tc.files {
				must(t, os.WriteFile(filepath.Join(target, f), []byte("not qa-shard's: "+f), 0o644))
			}
			out, lg := target, ""
			if tc.flag == "--logits" {
				out, lg = filepath.Join(dir, "answers.jsonl"), target
			}
			args := []string{"--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?", "--output", out, "--overwrite"}
			if lg != "" {
				args = append(args, "--logits", lg)
			}
			code, stderr := runCLI(t, args...)
			msg := messages(t, stderr)
			if code != exitUsage || !strings.Contains(msg, tc.flag+" "+target+" holds files qa-shard did not write") {
				t.Fatalf("exit %d, want %d refusing the folder:\n%s", code, exitUsage, stderr)
			}
			entries, _ := os.ReadDir(target)
			var left []string
			for _, e := range entries {
				left = append(left, e.Name())
				if b, _ := os.ReadFile(filepath.Join(target, e.Name())); string(b) != "not qa-shard's: "+e.Name() {
					t.Errorf("%s was changed", e.Name())
				}
			}
			want := slices.Clone(tc.files)
			slices.Sort(want)
			if !slices.Equal(left, want) {
				t.Errorf("the folder holds %v after the refusal, want %v", left, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "answers.jsonl")); err == nil {
				t.Errorf("the refused run wrote answers")
			}
		})
	}
}

// TestExistingOutputRefusals: without --overwrite, an output no qa-shard
// run wrote (no journal beside it) is refused without suggesting
// --resume, which could only fail; one a run wrote is refused suggesting
// it. --logits naming an input folder names --logits, not --output.
func TestExistingOutputRefusals(t *testing.T) {
	in := writeLines(t, `{"id": 1, "context": "Ada founded the company."}`)
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.jsonl")
	must(t, os.WriteFile(foreign, []byte("mine\n"), 0o644))
	args := []string{"--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?"}
	code, stderr := runCLI(t, append(args, "--output", foreign)...)
	if msg := messages(t, stderr); code != exitUsage || strings.Contains(msg, "add --resume") || !strings.Contains(msg, "no journal") || !strings.Contains(msg, "--overwrite") {
		t.Errorf("a file no run wrote: exit %d, want %d without --resume:\n%s", code, exitUsage, stderr)
	}
	ours := filepath.Join(dir, "answers.jsonl")
	if code, stderr := runCLI(t, append(args, "--output", ours)...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	code, stderr = runCLI(t, append(args, "--output", ours)...)
	if msg := messages(t, stderr); code != exitUsage || !strings.Contains(msg, "add --resume to continue the run that wrote it") {
		t.Errorf("a run's own output: exit %d, want %d suggesting --resume:\n%s", code, exitUsage, stderr)
	}
	code, stderr = runCLI(t, append(args, "--output", filepath.Join(dir, "b.jsonl"), "--logits", filepath.Dir(in))...)
	if msg := messages(t, stderr); code != exitUsage || !strings.Contains(msg, "--logits "+filepath.Dir(in)+" is also an input") {
		t.Errorf("--logits on the input folder: exit %d, want %d naming --logits:\n%s", code, exitUsage, stderr)
	}
}
