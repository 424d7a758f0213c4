//go:build testhooks

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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

// TestInputGrowsAfterItsEnd: a JSONL input appended to after the run has
// read it to its end (the append comes as the last document is handed
// on), or whose last line was still being written when it was read (its
// first half ended the file; the rest comes then), never ends in exit 0
// with documents unanswered or a half line's error record: the run's end
// check sees the file grew, exits 75 saying so and what --resume does,
// and --resume answers the rest, giving the answers of an uninterrupted
// run over the file as it ends up.
func TestInputGrowsAfterItsEnd(t *testing.T) {
	for _, tc := range []struct {
		name, action string
		half         bool
	}{
		{"appended after the end", "append", false},
		{"last line finished after it was read", "finish", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const docs = 400
			r := newResumeRun(t, docs)
			i := slices.Index(r.args, "--input") + 1
			in := r.args[i]
			last := docs - 1
			if tc.half {
				f, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
				must(t, err)
				_, err = f.WriteString(halfLine[:len(halfLine)/2])
				must(t, errors.Join(err, f.Close()))
				last = docs // the half line is a document of its own when read
			}
			c := startHooked(t, []string{fmt.Sprintf("%s=%d:%s:%s", envInputAt, last, tc.action, in)}, r.with()...)
			code := c.exit()
			msg := c.stderr.String()
			if code != exitInterrupted {
				t.Fatalf("exit %d after the input grew past its end, want %d:\n%s", code, exitInterrupted, msg)
			}
			if !strings.Contains(msg, "input file docs.jsonl grew after the run had read it to its end") || !strings.Contains(msg, "--resume") {
				t.Errorf("the message does not say the file grew and what --resume does:\n%s", msg)
			}
			if code, stderr := runCLI(t, r.with("--resume")...); code != exitOK {
				t.Fatalf("--resume: exit %d:\n%s", code, stderr)
			}
			want := r.baseline() // the file as it ends up, read whole
			got, err := os.ReadFile(r.output)
			must(t, err)
			if !bytes.Equal(got, want) {
				t.Errorf("the resumed answers differ from an uninterrupted run over the grown file")
			}
			ids := map[any]bool{}
			for _, rec := range readRecords(t, r.output) {
				ids[rec["id"]] = true
				if rec["error"] != nil {
					t.Errorf("error record %v", rec)
				}
			}
			late := []string{"written-late"}
			if !tc.half {
				late = []string{"appended-0", "appended-4"}
			}
			for _, id := range late {
				if !ids[id] {
					t.Errorf("document %s, written after the run read the end, is not answered", id)
				}
			}
		})
	}
}
