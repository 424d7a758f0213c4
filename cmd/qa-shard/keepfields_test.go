package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeptFieldCannotTakeAColumn: a kept field named like a column of
// the answers (span_logit, null_logit, question_id) or of the logits
// (window, question_index, input_ids, start_logits) is refused before
// any work, exit 2, naming the column, with nothing written: kept, it
// would write two keys of one name, overwrite the logits' own column or
// stop the run half-way on a type clash.
func TestKeptFieldCannotTakeAColumn(t *testing.T) {
	in := writeLines(t, `{"id": "a", "context": "Ada founded the company.", "span_logit": 1, "window": 7, "input_ids": "x"}`)
	for _, name := range []string{"span_logit", "null_logit", "question_id", "window", "question_index", "input_ids", "start_logits", "answers"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out, lg := filepath.Join(dir, "answers.parquet"), filepath.Join(dir, "logits")
			code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?",
				"--keep-fields", "url,"+name, "--output", out, "--logits", lg)
			if code != exitUsage || !strings.Contains(messages(t, stderr), `column "`+name+`"`) {
				t.Fatalf("--keep-fields %s: exit %d, want %d naming the column:\n%s", name, code, exitUsage, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("the refused run left %v", entries)
			}
		})
	}
}

// TestKeptFieldNamesAreTrimmed: "url, lang" keeps "lang", as a person
// who typed the space meant.
func TestKeptFieldNamesAreTrimmed(t *testing.T) {
	in := writeLines(t, `{"id": "a", "context": "Ada founded the company.", "url": "u", "lang": "en"}`)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	if code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?",
		"--keep-fields", "url, lang", "--output", out); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rec := readRecords(t, out)[0]
	if rec["lang"] != "en" || rec["url"] != "u" {
		t.Errorf("record %v, want url and lang kept", rec)
	}
}
