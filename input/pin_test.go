package input

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGuardChecksTheInputFirst: a guarded checkpoint runs while the input
// is the file read, and is refused with ErrChanged, without running, once
// the file was replaced under the reader.
func TestGuardChecksTheInputFirst(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	must(t, os.WriteFile(path, []byte(lines(0, 20)), 0o644))
	files, err := Find([]string{path})
	must(t, err)
	s := openRank(t, files, 0, 1, nil, 0)
	if n := len(readAll(t, s)); n != 20 {
		t.Fatalf("%d documents, want 20", n)
	}
	var ran []int64
	guarded := s.Guard(func(next int64) error { ran = append(ran, next); return nil })
	if err := guarded(20); err != nil || len(ran) != 1 {
		t.Fatalf("checkpoint of an unchanged input: %v, ran %v", err, ran)
	}
	other := filepath.Join(dir, "b.jsonl")
	must(t, os.WriteFile(other, []byte(lines(0, 20)), 0o644))
	must(t, os.Rename(other, path)) // the same text, another file
	err = guarded(20)
	if !errors.Is(err, ErrChanged) || len(ran) != 1 {
		t.Fatalf("checkpoint after the input was replaced: %v, ran %v; want ErrChanged and no checkpoint", err, ran)
	}
}
