package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubcommandsRefuseWhatHasNothingInIt: eval of a file that holds no
// answer records (the corpus, a journal), bench of an empty corpus and
// quantize into a folder that does not exist exit 2 with a sentence
// naming the file and what to give instead, rather than a 0.0 score, an
// infinite rate or an internal failure.
func TestSubcommandsRefuseWhatHasNothingInIt(t *testing.T) {
	dir := t.TempDir()
	corpus := writeLines(t, `{"id": "doc-00000", "context": "Ada founded it.", "question": "Who founded the company?"}`)
	empty := filepath.Join(dir, "empty.jsonl")
	must(t, os.WriteFile(empty, nil, 0o644))
	journal := filepath.Join(dir, "answers.jsonl.journal")
	must(t, os.WriteFile(journal, []byte(`{"version":3,"done":1,"complete":true}`+"\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"eval of the corpus", []string{"eval", "--gold", "testdata/eval-gold.jsonl", corpus}, []string{"not an answer record", "--output of a qa-shard run"}},
		{"eval of a journal", []string{"eval", "--gold", "testdata/eval-gold.jsonl", journal}, []string{"not an answer record"}},
		{"eval of an empty file", []string{"eval", "--gold", "testdata/eval-gold.jsonl", empty}, []string{"holds no answer records"}},
		{"bench of an empty corpus", []string{"bench", "--ort-lib", ortLib, "--model", model(t, "tiny"), "--input", empty, "--devices", "sim:1"}, []string{"holds no documents"}},
		{"quantize into a missing folder", []string{"quantize", "--ort-lib", ortLib, "--model", model(t, "tiny"), "--out", filepath.Join(dir, "no", "such", "int8")}, []string{"does not exist: create it first"}},
		{"quantize under a file", []string{"quantize", "--ort-lib", ortLib, "--model", model(t, "tiny"), "--out", filepath.Join(empty, "int8")}, []string{"is not a folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := capture(t, func() int { return dispatch(append(tc.args, "--log-format", "json")) })
			msg := messages(t, stderr)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d:\n%s%s", code, exitUsage, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, msg)
				}
			}
			if strings.Contains(stdout, "Inf") || strings.Contains(stdout, "NaN") {
				t.Errorf("printed a table of nothing:\n%s", stdout)
			}
		})
	}
}
