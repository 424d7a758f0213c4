package record

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// lineOf returns a valid record padded to exactly n bytes.
func lineOf(t *testing.T, n int) string {
	t.Helper()
	const frame = `{"context": "", "question": "q"}`
	if n < len(frame)+1 {
		t.Fatalf("cannot build a %d-byte record", n)
	}
	return `{"context": "` + strings.Repeat("x", n-len(frame)) + `", "question": "q"}`
}

func TestStreamMaxLineBytes(t *testing.T) {
	const max = 64
	exact, over := lineOf(t, max), lineOf(t, max+1)
	if len(exact) != max || len(over) != max+1 {
		t.Fatal("lineOf is wrong")
	}
	tests := []struct {
		name  string
		input string
		bad   []bool
	}{
		{"exactly max", exact + "\n" + exact, []bool{false, false}},
		{"exactly max with crlf", exact + "\r\n" + exact + "\r\n", []bool{false, false}},
		{"one over", over + "\n" + exact + "\n", []bool{true, false}},
		{"one over with crlf", over + "\r\n" + exact + "\r\n", []bool{true, false}},
		{"one over at the end without newline", exact + "\n" + over, []bool{false, true}},
		{"far over the read buffer", strings.Repeat("y", 3*readBufferSize) + "\n" + exact, []bool{true, false}},
		{"long blank line is still blank", strings.Repeat(" ", 3*readBufferSize) + "\n" + exact, []bool{false}},
		{"long line of spaces then text", strings.Repeat(" ", 3*readBufferSize) + "x\n" + exact, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := readAll(t, tt.input, Options{MaxLineBytes: max})
			if len(docs) != len(tt.bad) {
				t.Fatalf("got %d documents, want %d", len(docs), len(tt.bad))
			}
			for i, d := range docs {
				if d.Seq != int64(i) {
					t.Errorf("doc %d has Seq %d", i, d.Seq)
				}
				if tt.bad[i] != (d.Err != nil) || (d.Err != nil && !errors.Is(d.Err, ErrLineTooLong)) {
					t.Errorf("doc %d (%v): Err = %v, want too long: %v", i, d.Pos, d.Err, tt.bad[i])
				}
				if d.Err != nil && d.ID != nil {
					t.Errorf("too-long line has id %s", d.ID)
				}
			}
		})
	}
}

// TestStreamDoesNotBufferLongLines reads a line far past the limit and
// checks that the line buffer never grew beyond what the limit allows.
func TestStreamDoesNotBufferLongLines(t *testing.T) {
	const max = 1000
	input := strings.Repeat("z", 8<<20) + "\n" + lineOf(t, 100) + "\n"
	r := NewStream(strings.NewReader(input), Options{MaxLineBytes: max})
	d, err := r.Next()
	if err != nil || !errors.Is(d.Err, ErrLineTooLong) {
		t.Fatalf("Next = %v, %v; want ErrLineTooLong", d.Err, err)
	}
	if c := cap(r.buf); c > 2*(max+2) {
		t.Fatalf("line buffer grew to %d bytes for a limit of %d", c, max)
	}
	if d, err := r.Next(); err != nil || d.Err != nil || d.Pos.At != 8<<20+1 {
		t.Fatalf("line after the long one: %+v, %v", d, err)
	}
}

// genReader produces n distinct records on the fly, so that the test input
// itself does not occupy memory that would hide the reader's.
type genReader struct {
	n, i int
	buf  []byte
	cur  []byte
}

func (g *genReader) Read(p []byte) (int, error) {
	if len(g.cur) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		// Built without fmt, whose allocations would count against the reader.
		b := append(g.buf[:0], `{"id": "doc-`...)
		b = strconv.AppendInt(b, int64(g.i), 10)
		b = append(b, `", "context": "context number `...)
		b = strconv.AppendInt(b, int64(g.i), 10)
		b = append(b, ` with some words in it", "questions": ["who `...)
		b = strconv.AppendInt(b, int64(g.i%7), 10)
		b = append(b, "?\", \"what?\"]}\n"...)
		g.buf, g.cur = b, b
		g.i++
	}
	n := copy(p, g.cur)
	g.cur = g.cur[n:]
	return n, nil
}

// TestStreamMemoryIsFlat reads 100k documents, dropping each, and checks
// that the heap afterwards is about what it was before: a reader that kept
// anything per document (an id set, a line index) would hold megabytes.
func TestStreamMemoryIsFlat(t *testing.T) {
	const n = 100_000
	r := NewStream(&genReader{n: n}, Options{Questions: []string{"global?"}})
	// Warm up so that the reused buffers exist before the baseline.
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	count := 1
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Err != nil {
			t.Fatalf("%v: %v", d.Pos, d.Err)
		}
		count++
	}
	after := heapInUse()
	if count != n {
		t.Fatalf("read %d documents, want %d", count, n)
	}
	// 100k documents of ~150 bytes each would be ~15 MB if retained.
	if grew := int64(after) - int64(before); grew > 1<<20 {
		t.Fatalf("heap grew by %d bytes over %d documents", grew, n)
	}
	runtime.KeepAlive(r)
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStreamAllocsPerLine bounds the allocations per document: five for
// what the Document hands out (id, context, two questions, the list), the
// rest inside encoding/json's two Unmarshal calls (14 in all with Go 1.26).
// A reader that copied the line or built state per document would exceed it.
func TestStreamAllocsPerLine(t *testing.T) {
	r := NewStream(&genReader{n: 1 << 30}, Options{})
	allocs := testing.AllocsPerRun(10_000, func() {
		if d, err := r.Next(); err != nil || d.Err != nil {
			t.Fatalf("Next: %v %v", err, d.Err)
		}
	})
	t.Logf("%.1f allocations per line", allocs)
	if allocs > 16 {
		t.Fatalf("%.1f allocations per line, want at most 16", allocs)
	}
}
