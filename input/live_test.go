package input

import (
	"bufio"
	"errors"
	"io"
	"testing"

	"qa-shard/internal/record"
	"qa-shard/shard"
)

// pacedReader hands out one chunk per Read, as a pipe does whose writer
// waits for an answer before it writes again; reads counts the calls, so a
// test sees whether standard input was read further than it had to be.
type pacedReader struct {
	chunks []string
	reads  int
}

func (p *pacedReader) Read(b []byte) (int, error) {
	p.reads++
	if len(p.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.chunks[0])
	if p.chunks[0] = p.chunks[0][n:]; p.chunks[0] == "" {
		p.chunks = p.chunks[1:]
	}
	return n, nil
}

// onStdin makes standard input the given chunks for one test.
func onStdin(t *testing.T, chunks ...string) *pacedReader {
	t.Helper()
	p := &pacedReader{chunks: chunks}
	stdinReader = bufio.NewReaderSize(p, 1<<20)
	t.Cleanup(func() { stdinReader = nil })
	return p
}

var stdinFile = []File{{Path: "-", Name: "stdin", Size: -1}}

// TestStdinSchemaReadsOneLine: the schema's look at standard input's first
// record returns once that line has come, with its blank lines before it
// in another read, without asking for more (a fuller buffer would leave a
// long-lived producer, which writes one record and waits for its answer,
// waiting for ever).
func TestStdinSchemaReadsOneLine(t *testing.T) {
	p := onStdin(t, "\n", `{"id": 7, "context": "c", "question": "q?"}`+"\n", `{"id": 8, "context": "c", "question": "q?"}`+"\n")
	s, err := Schema(stdinFile, record.Options{}, "auto")
	must(t, err)
	if s.ID != record.Int {
		t.Fatalf("id kind %v, want integer (from the first record)", s.ID)
	}
	if p.reads != 2 {
		t.Fatalf("standard input read %d times, want 2 (the blank line, then the first record)", p.reads)
	}
}

// TestStdinSchemaDecided: with the id's kind given and no kept fields,
// standard input is not read at all before the run starts, so the model
// loads before the first record arrives.
func TestStdinSchemaDecided(t *testing.T) {
	p := onStdin(t, `{"id": 7, "context": "c"}`+"\n")
	s, err := Schema(stdinFile, record.Options{}, "string")
	must(t, err)
	if s.ID != record.String || p.reads != 0 {
		t.Fatalf("id kind %v after %d reads, want string after none", s.ID, p.reads)
	}
	opt := record.Options{Fields: record.Fields{Keep: []string{"url"}}}
	if _, err := Schema(stdinFile, opt, "string"); err != nil || p.reads == 0 {
		t.Fatalf("with kept fields: %d reads (%v), want the first record read for their kinds", p.reads, err)
	}
}

// TestStdinDocumentsWithoutLookAhead: each document of standard input is
// handed on once its line is read, not when the next one is, and the
// journal's marks still follow every document.
func TestStdinDocumentsWithoutLookAhead(t *testing.T) {
	first, second := `{"id": "a", "context": "one"}`+"\n", `{"id": "b", "context": "two"}`+"\n"
	p := onStdin(t, first, second)
	plan, err := Split(stdinFile, shard.Rank{World: 1})
	must(t, err)
	r, err := plan.Open(record.Options{Questions: []string{"q?"}}, nil, 0)
	must(t, err)
	defer r.Close()
	for i, want := range []string{"a", "b"} {
		d, err := r.Next()
		must(t, err)
		if string(d.ID) != want && string(d.ID) != `"`+want+`"` {
			t.Fatalf("document %d has id %s, want %s", i, d.ID, want)
		}
		if p.reads != i+1 {
			t.Fatalf("document %d handed on after %d reads of standard input, want %d (no look-ahead)", i, p.reads, i+1)
		}
		if at := r.At(int64(i + 1)); at.Next.Offset != int64(len(first)*(i+1)) {
			t.Fatalf("after document %d the input continues at %d, want %d", i, at.Next.Offset, len(first)*(i+1))
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last document: %v, want EOF", err)
	}
}
