package record

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

func BenchmarkStream(b *testing.B) {
	r := NewStream(&genReader{n: 1 << 40}, Options{})
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
