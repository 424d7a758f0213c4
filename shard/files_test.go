package shard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadQuestionsFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
		err     error
	}{
		{"plain", "Who?\nWhat?\n", []string{"Who?", "What?"}, nil},
		{"comments blanks crlf bom", "\xEF\xBB\xBF# header\r\n\r\n  Who?  \r\n\t# indented comment\nWhat? # not a comment\n", []string{"Who?", "What? # not a comment"}, nil},
		{"no final newline", "Who?", []string{"Who?"}, nil},
		{"only comments", "# a\n\n  \n", nil, ErrNoQuestions},
		{"empty", "", nil, ErrNoQuestions},
		{"bad utf8", "Who?\nW\xffhat?\n", nil, ErrInvalidUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadQuestionsFile(writeTemp(t, tt.content))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := ReadQuestionsFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestCountLines(t *testing.T) {
	big := strings.Repeat(`{"context": "x", "question": "q"}`+"\n", 100_000) // crosses the 1 MiB chunk
	tests := []struct {
		name    string
		content string
		want    int64
	}{
		{"empty", "", 0},
		{"one without newline", "{}", 1},
		{"blanks skipped", "\n{}\n   \n\t\r\n{}\n\n", 2},
		{"crlf", "{}\r\n{}\r\n", 2},
		{"bom only", "\xEF\xBB\xBF\n", 0},
		{"bom then record", "\xEF\xBB\xBF{}\n{}", 2},
		{"blank line across chunks", strings.Repeat(" ", 3<<20) + "\n{}\n", 1},
		{"text after long blank run", strings.Repeat(" ", 3<<20) + "x\n", 1},
		{"many", big, 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.content)
			got, err := CountLines(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("CountLines = %d, want %d", got, tt.want)
			}
			// It must agree with the numbering of the reader.
			if docs := readAll(t, tt.content, Options{}); int64(len(docs)) != got {
				t.Errorf("reader numbered %d documents, CountLines says %d", len(docs), got)
			}
		})
	}
	if _, err := CountLines(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func BenchmarkCountLines(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	content := strings.Repeat(`{"id": 1, "context": "`+strings.Repeat("word ", 200)+`", "question": "q"}`+"\n", 20_000)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := CountLines(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	r := NewReader(&genReader{n: 1 << 40}, Options{})
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
