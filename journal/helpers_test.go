package journal_test

import (
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/fingerprint"
)

// fp is a realistic fingerprint: the values have the sizes package fingerprint's
// functions produce, so size assertions are honest.
func fp() fingerprint.Fingerprint {
	h := func(c byte) string {
		b := make([]byte, 64)
		for i := range b {
			b[i] = c
		}
		return string(b)
	}
	return fingerprint.Fingerprint{
		Input:     "size=123456789012;sha256=" + h('a'),
		Model:     "sha256=" + h('b'),
		Settings:  "sha256=" + h('c'),
		Questions: "sha256=" + h('d'),
	}
}

// okSync is an output whose Sync succeeds without a file behind it.
type okSync struct{}

func (okSync) Sync() error { return nil }

// outPath returns a fresh output path in a test directory.
func outPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "answers.jsonl")
}

// appendOut appends s to the output and returns the file, still open, for
// Checkpoint to sync.
func appendOut(t *testing.T, path, s string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return f
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
