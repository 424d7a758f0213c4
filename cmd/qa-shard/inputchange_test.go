//go:build testhooks

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestInputChangedUnderRun: an input file overwritten in place (same
// size), truncated or replaced while the job reads it, at document 150,
// stops the run with exit 2 naming the file and saying what --resume
// does; the journal never vouches for documents read after the change,
// and the run never exits 0 or 3. A JSONL file that only grows at its end
// keeps working: its new documents are answered, exit 0. A Parquet input
// replaced, or grown (a Parquet file ends with its footer: one that grew
// was rewritten), stops the run the same way.
func TestInputChangedUnderRun(t *testing.T) {
	for _, tc := range []struct{ action, file string }{
		{"overwrite", "docs.jsonl"}, {"truncate", "docs.jsonl"}, {"replace", "docs.jsonl"}, {"append", "docs.jsonl"},
		{"replace", "docs.parquet"}, {"append", "docs.parquet"},
	} {
		action := tc.action
		t.Run(action+" "+tc.file, func(t *testing.T) {
			r := newResumeRun(t, 400)
			i := slices.Index(r.args, "--input") + 1
			if strings.HasSuffix(tc.file, ".parquet") {
				r.args[i] = toParquet(t, readRecords(t, r.args[i]), tc.file, 50)
			}
			in := r.args[i]
			c := startHooked(t, []string{fmt.Sprintf("%s=150:%s:%s", envInputAt, action, in)}, r.with()...)
			code := c.exit()
			if action == "append" && tc.file == "docs.jsonl" {
				if code != exitOK {
					t.Fatalf("exit %d after the input grew, want 0:\n%s", code, c.stderr)
				}
				if n := len(readRecords(t, r.output)); n < 400+appended {
					t.Fatalf("%d records, want at least %d (the appended documents too)", n, 400+appended)
				}
				return
			}
			msg := c.stderr.String()
			if code != exitUsage {
				t.Fatalf("exit %d after the input was %sed under the run, want %d:\n%s", code, action, exitUsage, msg)
			}
			if !strings.Contains(msg, "input file "+tc.file) || !strings.Contains(msg, "--resume") {
				t.Errorf("the message does not name the file and what --resume does:\n%s", msg)
			}
			// Parquet is read by row groups of 50: up to document 200.
			if done := journalDone(r.output); done > 152 && (tc.file == "docs.jsonl" || done > 200) {
				t.Errorf("the journal vouches for %d documents; the file changed at document 150", done)
			}
		})
	}
}

// TestOutputChangedUnderRun: the answers file truncated to 0 bytes or
// removed, or the outputs' folder removed, from outside the run at
// document 150 (just after a checkpoint
// there) stops the run with exit 1 saying what happened (the file is
// shorter than what was written, or gone) and what
// --resume does, with no summary of answers it did not keep; the
// journal vouches for the 150 documents before the change and no more,
// and --resume then refuses (the answers it vouches for are gone).
func TestOutputChangedUnderRun(t *testing.T) {
	for _, tc := range []struct{ action, says string }{{"truncate", "has "}, {"remove", "was removed"}, {"removedir", "was removed"}} {
		t.Run(tc.action, func(t *testing.T) {
			r := newResumeRun(t, 300)
			c := startHooked(t, []string{fmt.Sprintf("%s=150:%s:%s", envOutputAt, tc.action, r.output)}, r.with()...)
			code := c.exit()
			msg := c.stderr.String()
			if code != exitInternal {
				t.Fatalf("exit %d after the answers file was %s under the run, want %d:\n%s", code, tc.action, exitInternal, msg)
			}
			if !strings.Contains(msg, "answers.jsonl "+tc.says) || !strings.Contains(msg, "--resume") {
				t.Errorf("the message does not say what happened to answers.jsonl and what --resume does:\n%s", msg)
			}
			if strings.Contains(msg, `"msg":"summary"`) {
				t.Errorf("a summary was reported for answers that are not kept:\n%s", msg)
			}
			if tc.action == "removedir" {
				return // the journal went with the folder: nothing is vouched for
			}
			if done := journalDone(r.output); done != 150 {
				t.Errorf("the journal vouches for %d documents, want the 150 before the change", done)
			}
			code, stderr := runCLI(t, r.with("--resume")...)
			if code != exitUsage {
				t.Errorf("--resume after the answers were %s: exit %d, want %d (refused):\n%s", tc.action, code, exitUsage, stderr)
			}
		})
	}
}
