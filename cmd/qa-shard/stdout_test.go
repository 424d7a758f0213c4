//go:build testhooks

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// hangBound bounds a read from a child that should have written already:
// a failure bound for a hang, not a time anything waits for.
const hangBound = 3 * time.Minute

// readLines reads n lines from r, or fails the test when they do not
// come (the child holds on to them) within hangBound.
func readLines(t *testing.T, r *bufio.Reader, n int, c *child) []string {
	t.Helper()
	type result struct {
		lines []string
		err   error
	}
	got := make(chan result, 1)
	go func() {
		var lines []string
		for len(lines) < n {
			l, err := r.ReadString('\n')
			if err != nil {
				got <- result{lines, err}
				return
			}
			lines = append(lines, l)
		}
		got <- result{lines, nil}
	}()
	select {
	case res := <-got:
		if res.err != nil {
			t.Fatalf("read %d of %d lines from standard output: %v\n%s", len(res.lines), n, res.err, c.stderr)
		}
		return res.lines
	case <-time.After(hangBound):
		c.Process.Kill()
		t.Fatalf("the records of the documents written did not reach standard output (held until a checkpoint?)")
		return nil
	}
}

// TestStdoutStreams: with --output -, the records of documents 0..39
// are on standard output while the writer holds document 40 (a hook,
// before its first record),
// with no checkpoint in between (--checkpoint-interval 1h), each a
// strict JSON line in input order; the rest follows and the run exits 0.
func TestStdoutStreams(t *testing.T) {
	const docs, at = 60, 40
	r := newResumeRun(t, docs)
	c, stdout := startHookedPipe(t, true, []string{fmt.Sprintf("%s=%d", envWriteAt, at)}, append([]string{"--output", "-"}, append(r.args, "--checkpoint-interval", "1h")...)...)
	// writeCorpus gives every fifth document a question of its own: two
	// records.
	var ids []string
	for i := range docs {
		ids = append(ids, fmt.Sprintf("d%03d", i))
		if i%5 == 0 {
			ids = append(ids, fmt.Sprintf("d%03d", i))
		}
	}
	before := at + (at+4)/5 // the records of documents 0..at-1
	br := bufio.NewReader(stdout)
	lines := readLines(t, br, before, c)
	for i, l := range lines {
		var rec struct{ ID string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.ID != ids[i] {
			t.Fatalf("line %d on standard output: %q (%v), want a record of %s", i+1, l, err, ids[i])
		}
	}
	c.stdin.Close() // the writer goes on
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if code := c.exit(); code != exitOK {
		t.Fatalf("exit %d, want 0:\n%s", code, c.stderr)
	}
	if n := before + strings.Count(string(rest), "\n"); n != len(ids) {
		t.Errorf("%d records on standard output, want %d", n, len(ids))
	}
}

// TestStdoutReaderGone: as `--output - | head`: the reader takes the
// records of documents 0..9 and closes the pipe while the writer holds
// document 10 (a hook);
// the next record's write fails with EPIPE and the run ends with exit 75
// and a last line saying standard output was closed by its reader after
// 10 documents, never by SIGPIPE (141) without a word, and does no more
// work (no summary: the run stopped at the write).
func TestStdoutReaderGone(t *testing.T) {
	r := newResumeRun(t, 300)
	c, stdout := startHookedPipe(t, true, []string{envWriteAt + "=10"}, append([]string{"--output", "-"}, r.args...)...)
	// All 12 records of documents 0..9 (two for every fifth): the writer
	// is at document 10, held, when the reader goes.
	readLines(t, bufio.NewReader(stdout), 12, c)
	stdout.Close() // the reader has gone
	code := c.exit()
	msg := c.stderr.String()
	if code != exitInterrupted {
		t.Fatalf("exit %d after the reader of standard output went away, want %d:\n%s", code, exitInterrupted, msg)
	}
	last := lastLine(msg)
	if !strings.Contains(last, "standard output was closed by its reader") || !strings.Contains(last, "document 10:") || !strings.Contains(last, "10 of 300 documents were written") {
		t.Errorf("the last line does not say the reader went away after 10 documents:\n%s", last)
	}
	if strings.Contains(msg, `"msg":"summary"`) {
		t.Errorf("the run went on to a summary after its reader went away:\n%s", msg)
	}
}
