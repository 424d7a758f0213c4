package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInputFromAPipe: a FIFO (what a shell's <(zcat docs.jsonl.gz) is) is
// read as a stream, as --input - reads standard input: the run answers
// what was written into it, the same answers as from the file.
func TestInputFromAPipe(t *testing.T) {
	in := writeCorpus(t, 30, 61)
	text, err := os.ReadFile(in)
	must(t, err)
	fifo := filepath.Join(t.TempDir(), "docs.fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	go func() { // the writer a process substitution would be
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.Write(text) // the reader reports what arrived
		f.Close()
	}()
	dir := t.TempDir()
	args := []string{"--model", model(t, "tiny"), "--devices", "sim:1", "--question", "Who?"}
	if code, stderr := runCLI(t, append(args, "--input", fifo, "--output", filepath.Join(dir, "pipe.jsonl"))...); code != exitOK {
		t.Fatalf("--input FIFO: exit %d:\n%s", code, stderr)
	}
	if code, stderr := runCLI(t, append(args, "--input", in, "--output", filepath.Join(dir, "file.jsonl"))...); code != exitOK {
		t.Fatalf("--input file: exit %d:\n%s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "pipe.jsonl"))
	b, _ := os.ReadFile(filepath.Join(dir, "file.jsonl"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the answers from the pipe differ from the file's (%d and %d bytes)", len(a), len(b))
	}
	code, stderr := runCLI(t, append(args, "--input", fifo, "--input", in, "--output", filepath.Join(dir, "both.jsonl"))...)
	if code != exitUsage || !strings.Contains(messages(t, stderr), "is read as a stream, alone") {
		t.Errorf("a pipe among other inputs: exit %d, want %d saying a pipe stands alone:\n%s", code, exitUsage, stderr)
	}
}

// TestInputThatIsNotJSONLines: a JSON array of records, or a
// pretty-printed object, is refused before any work, naming JSONL and the
// conversion, instead of an error record for every line.
func TestInputThatIsNotJSONLines(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"docs.json":  "[\n  {\"id\": 1, \"context\": \"Ada founded it.\"},\n  {\"id\": 2, \"context\": \"Bo moved it.\"}\n]\n",
		"docs.jsonl": "{\n  \"id\": 1,\n  \"context\": \"Ada founded it.\"\n}\n",
	} {
		in := filepath.Join(dir, name)
		must(t, os.WriteFile(in, []byte(text), 0o644))
		out := filepath.Join(t.TempDir(), "answers.jsonl")
		code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--question", "Who?", "--input", in, "--output", out)
		msg := messages(t, stderr)
		if code != exitUsage || !strings.Contains(msg, "one JSON object per line (JSONL)") || !strings.Contains(msg, "jq -c") {
			t.Errorf("%s: exit %d, want %d naming JSONL and jq:\n%s", name, code, exitUsage, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused run wrote answers", name)
		}
	}
}

// TestCompressedInputCutInItsFirstFrame: a .jsonl.zst cut inside its
// first frame is refused naming the file and byte, without claiming that
// documents before the damage are kept: none were written.
func TestCompressedInputCutInItsFirstFrame(t *testing.T) {
	recs := corpusRecords(t, writeCorpus(t, 60, 71))
	whole := toText(t, recs, "docs.jsonl.zst", 1<<30) // one frame
	b, err := os.ReadFile(whole)
	must(t, err)
	dir := t.TempDir()
	in := filepath.Join(dir, "docs.jsonl.zst")
	must(t, os.WriteFile(in, b[:len(b)/2], 0o644))
	out := filepath.Join(dir, "answers.jsonl")
	code, stderr := runCLI(t, "--model", model(t, "tiny"), "--devices", "sim:1", "--question", "Who?", "--input", in, "--output", out)
	msg := messages(t, stderr)
	if code != exitUsage || !strings.Contains(msg, "docs.jsonl.zst") || !strings.Contains(msg, "compressed byte") {
		t.Fatalf("exit %d, want %d naming the file and byte:\n%s", code, exitUsage, stderr)
	}
	if strings.Contains(msg, "documents before it are kept") {
		t.Errorf("the message claims documents are kept:\n%s", msg)
	}
	if done := journalDone(out); done > 0 {
		t.Errorf("the journal vouches for %d documents of a file cut in its first frame", done)
	}
}
