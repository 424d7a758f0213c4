package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsThatCannotMeanAnything: settings no run can use are refused
// before any work, exit 2, each with a sentence naming the flag and what
// would work, and nothing is written: counts below their least, durations
// that are negative or spam the log, flags that contradict each other,
// the logits written over the answers.
func TestSettingsThatCannotMeanAnything(t *testing.T) {
	in := writeLines(t, `{"id": 1, "context": "Ada founded the company."}`)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"checkpoint interval 0", []string{"--checkpoint-interval", "0"}, []string{"--checkpoint-interval 0s", "at least 1ms"}},
		{"checkpoint interval negative", []string{"--checkpoint-interval", "-5s"}, []string{"--checkpoint-interval -5s"}},
		{"threads negative", []string{"--threads", "-1"}, []string{"--threads -1", "0 or more"}},
		{"batch timeout negative", []string{"--batch-timeout", "-1s"}, []string{"--batch-timeout -1s"}},
		{"progress every nanosecond", []string{"--progress-interval", "1ns"}, []string{"--progress-interval 1ns", "at least 1s"}},
		{"metrics interval 0", []string{"--metrics-interval", "0"}, []string{"--metrics-interval"}},
		{"tokenize workers 0", []string{"--tokenize-workers", "0"}, []string{"--tokenize-workers 0", "1 or more"}},
		{"gpu memory fraction 2", []string{"--gpu-mem-fraction", "2"}, []string{"--gpu-mem-fraction 2", "at most 1"}},
		{"resume and overwrite", []string{"--resume", "--overwrite"}, []string{"--resume and --overwrite", "give one of them"}},
		{"logits over the answers", []string{"--logits", "OUT"}, []string{"is the --output path", "answers.logits"}},
		{"settings field is the context", []string{"--settings-field", "context"}, []string{"--settings-field context", "settings object"}},
		{"settings field with Parquet", []string{"--settings-field", "settings", "--output", "OUT.parquet"}, []string{"--settings-field settings", "write JSONL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "answers.jsonl")
			args := []string{"--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?", "--output", out}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			code, stderr := runCLI(t, args...)
			msg := messages(t, stderr)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d:\n%s", code, exitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, msg)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("the refused run left %v", entries)
			}
		})
	}
}
