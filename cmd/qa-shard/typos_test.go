package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTyposRefusedBeforeWork: a field name no record has (--keep-fields
// ulr, --id-field docid, --context-field contxt), a question too long for
// any window and "cpu" listed as devices are refused before any document
// is read, exit 2, with a sentence naming what to fix, and nothing is
// written; before, they gave null in every record, positional ids, a
// corpus of error records, or a message about GPUs.
func TestTyposRefusedBeforeWork(t *testing.T) {
	in := writeLines(t, `{"id": "a", "context": "Ada founded the company.", "url": "u1"}`, `{"id": "b", "context": "Bo moved it.", "url": "u2"}`)
	long := strings.Repeat("which company ", 300) + "?"
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"kept field no record has", []string{"--keep-fields", "ulr"}, []string{"--keep-fields ulr", `a field "ulr"`, "id, context, url"}},
		{"id field no record has", []string{"--id-field", "docid"}, []string{"--id-field docid", "leave --id-field out"}},
		{"context field no record has", []string{"--context-field", "contxt"}, []string{"--context-field contxt", "name the field holding the text"}},
		{"question too long for any window", []string{"--question", long}, []string{"leaves no room for the context in --max-seq-len 384", "shorten the question"}},
		{"cpu listed twice", []string{"--devices", "cpu,cpu"}, []string{"--devices cpu:2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "answers.jsonl")
			args := append([]string{"--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Who?", "--output", out}, tc.args...)
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
			if strings.Contains(msg, "asks for GPUs") {
				t.Errorf("the refusal speaks of GPUs:\n%s", msg)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("the refused run left %v", entries)
			}
		})
	}
}

// TestQuestionAskedTwice: a question given twice is asked once, the start
// line counts it once, and a warning says so.
func TestQuestionAskedTwice(t *testing.T) {
	in := writeLines(t, `{"id": "a", "context": "Ada founded the company."}`)
	qs := filepath.Join(t.TempDir(), "questions.txt")
	must(t, os.WriteFile(qs, []byte("Who founded it?\n  Who founded it?  \nWhere?\n"), 0o644))
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--input", in, "--question", "Where?", "--questions-file", qs, "--output", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	lines := jsonLines(t, stderr)
	if start := find(lines, "starting"); start == nil || start["questions"] != float64(2) {
		t.Errorf("the start line says %v questions, want 2", start["questions"])
	}
	for _, q := range []string{"Who founded it?", "Where?"} {
		if find(lines, `the question "`+q+`" is given more than once`) == nil {
			t.Errorf("no warning that %q is given twice:\n%s", q, stderr)
		}
	}
	if n := len(readRecords(t, out)); n != 2 {
		t.Errorf("%d records, want 2 (one a question)", n)
	}
}
