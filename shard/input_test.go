package shard

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o644)
	if err := CheckInput(file); err != nil {
		t.Errorf("a file: %v", err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "missing.jsonl")} {
		if err := CheckInput(p); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", p, err)
		}
		if _, err := OpenInput(p); !errors.Is(err, ErrInput) {
			t.Errorf("OpenInput(%s): %v, want ErrInput", p, err)
		}
	}
}

func TestBlock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "docs.jsonl")
	os.WriteFile(file, []byte("{}\n\n{}\n{}\n"), 0o644)
	if s, err := Block(file, Rank{World: 1}); err != nil || s != (Span{First: 0, End: 3, Bytes: 9}) {
		t.Errorf("single process: %+v %v, want [0, 3) of 9 bytes", s, err)
	}
	if s, err := Block("-", Rank{World: 1}); err != nil || s != (Span{}) {
		t.Errorf("standard input: %+v %v, want [0, 0): not counted", s, err)
	}
	if _, err := Block("-", Rank{Rank: 1, World: 2}); !errors.Is(err, ErrRank) {
		t.Errorf("ranks on standard input: %v, want ErrRank", err)
	}
	var next int64
	for r := range 2 {
		s, err := Block(file, Rank{Rank: r, World: 2})
		if err != nil || s.First != next {
			t.Fatalf("rank %d: %+v %v, want to start at %d", r, s, err, next)
		}
		next = s.End
	}
	if next != 3 {
		t.Errorf("ranks cover [0, %d), want [0, 3)", next)
	}
}

// TestSpanBytesAreTheDocumentsBytes: the progress total of a block, found
// in the pass over the file, is exactly the sum of the Bytes the reader
// gives its documents, whatever the lines hold: a byte-order mark, blank
// lines, CRLF ends, a line too long to keep, no final newline.
func TestSpanBytesAreTheDocumentsBytes(t *testing.T) {
	text := "\ufeff{\"id\": 1, \"context\": \"a\"}\r\n\n  \n" + `{"id": 2, "context": "` + strings.Repeat("long ", 600) + "\"}\n" +
		"{bad json\n\t\n" + `{"id": 3, "context": "é"}` + "\n" + `{"id": 4, "context": "end"}`
	file := filepath.Join(t.TempDir(), "docs.jsonl")
	os.WriteFile(file, []byte(text), 0o644)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, Options{MaxLineBytes: 1024, Questions: []string{"q"}})
	var bytesOf []int64
	var sum int64
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		bytesOf = append(bytesOf, d.Bytes)
		sum += d.Bytes
	}
	if len(bytesOf) != 5 || bytesOf[1] < 3000 {
		t.Fatalf("documents' bytes %v, want 5 documents, the second over 3000 bytes", bytesOf)
	}
	if blanks := int64(len("\n  \n\t\n")); sum != int64(len(text))-blanks {
		t.Errorf("documents hold %d bytes, the file %d of which %d are blank lines", sum, len(text), blanks)
	}
	for _, w := range []int{1, 2, 3, 7} {
		var got int64
		for rank := range w {
			s, err := Block(file, Rank{Rank: rank, World: w})
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, b := range bytesOf[s.First:s.End] {
				want += b
			}
			if s.Bytes != want {
				t.Errorf("w=%d rank %d: span %+v, its documents hold %d bytes", w, rank, s, want)
			}
			got += s.Bytes
		}
		if got != sum {
			t.Errorf("w=%d: spans hold %d bytes, the documents %d", w, got, sum)
		}
	}
}
