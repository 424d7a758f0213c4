//go:build testhooks

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxErrorsCountsRecordsBeforeResume: an error record written before
// an interruption still counts after --resume: the resumed process, which
// writes no error record itself, exits 3 (or 0 within --max-errors), and
// the journal keeps the whole output's counts; so does a --resume of the
// output once it is complete.
func TestMaxErrorsCountsRecordsBeforeResume(t *testing.T) {
	const docs = 300
	b, err := os.ReadFile(writeCorpus(t, docs, 11))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = "{\"id\": \"broken\", \"context\": \n" // a malformed line early on
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		extra []string
		want  int
		says  string
	}{
		{"default", nil, exitRecords, "completed with 1 error record "},
		{"within --max-errors", []string{"--max-errors", "1"}, exitOK, "within --max-errors 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "answers.jsonl")
			args := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?", "--output", out,
				"--devices", "cpu:2", "--threads", "1", "--max-batch-tokens", "1024", "--checkpoint-interval", "50ms"}
			c := startHooked(t, []string{envSignalAt + "=150:USR1"}, args...)
			if code := c.exit(); code != exitInterrupted {
				t.Fatalf("exit %d after SIGUSR1, want %d:\n%s", code, exitInterrupted, c.stderr)
			}
			if st := journalCounts(t, out); st.Errors != 1 || st.Done < 150 {
				t.Fatalf("journal after the stop: %+v, want the error record of line 3 counted among 150 or more documents", st)
			}
			code, stderr := runCLI(t, append(args, append([]string{"--resume"}, tc.extra...)...)...)
			if code != tc.want || !strings.Contains(stderr, tc.says) {
				t.Fatalf("resume: exit %d, want %d saying %q:\n%s", code, tc.want, tc.says, stderr)
			}
			written, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := int64(strings.Count(string(written), "\n"))
			if st := journalCounts(t, out); st.Done != docs || st.Records != lines || st.Errors != 1 {
				t.Errorf("journal at the end: %+v, want %d documents, %d records (the output's lines), 1 error", st, docs, lines)
			}
			// Resuming the complete output answers nothing and judges the same.
			code, stderr = runCLI(t, append(args, append([]string{"--resume"}, tc.extra...)...)...)
			if code != tc.want || !strings.Contains(stderr, "already complete") || !strings.Contains(stderr, tc.says) {
				t.Fatalf("resume of the complete output: exit %d, want %d saying it is complete and %q:\n%s", code, tc.want, tc.says, stderr)
			}
		})
	}
}

type counts struct{ Done, Records, Errors int64 }

func journalCounts(t *testing.T, output string) counts {
	t.Helper()
	b, err := os.ReadFile(output + ".journal")
	if err != nil {
		t.Fatal(err)
	}
	var c counts
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}
