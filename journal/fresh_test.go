package journal_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/journal"
)

func TestCheckFresh(t *testing.T) {
	tests := []struct {
		name   string
		exist  []string // created before the check
		check  []string
		refuse []string // named in the error; none: no error
	}{
		{"nothing exists", nil, []string{"a.jsonl", "a.jsonl.journal"}, nil},
		{"output exists", []string{"a.jsonl"}, []string{"a.jsonl", "a.jsonl.journal"}, []string{"a.jsonl"}},
		{"journal exists", []string{"a.jsonl.journal"}, []string{"a.jsonl", "a.jsonl.journal"}, []string{"a.jsonl.journal"}},
		{"both exist", []string{"a.jsonl", "a.jsonl.journal"}, []string{"a.jsonl", "a.jsonl.journal"}, []string{"a.jsonl", "a.jsonl.journal"}},
		{"stdout and unset paths are skipped", nil, []string{"-", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			abs := func(p string) string {
				if p == "" || p == "-" {
					return p
				}
				return filepath.Join(dir, p)
			}
			for _, p := range tt.exist {
				if err := os.WriteFile(abs(p), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var paths []string
			for _, p := range tt.check {
				paths = append(paths, abs(p))
			}
			err := journal.CheckFresh(paths...)
			if tt.refuse == nil {
				if err != nil {
					t.Fatalf("CheckFresh = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, journal.ErrExists) {
				t.Fatalf("CheckFresh = %v, want ErrExists", err)
			}
			msg := err.Error()
			for _, p := range tt.refuse {
				if !strings.Contains(msg, abs(p)+",") && !strings.Contains(msg, abs(p)+":") {
					t.Errorf("message %q does not name %s", msg, p)
				}
			}
			// --resume is offered only where a journal says a run wrote
			// the output; --overwrite always.
			journaled := slices.Contains(tt.exist, "a.jsonl.journal")
			if strings.Contains(msg, "add --resume") != journaled || !strings.Contains(msg, "--overwrite") {
				t.Errorf("message %q: want --overwrite, and --resume only with a journal (%v)", msg, journaled)
			}
		})
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	for _, existing := range []string{"output", "journal"} {
		t.Run(existing, func(t *testing.T) {
			out := outPath(t)
			p := out
			if existing == "journal" {
				p = journal.Path(out)
			}
			if err := os.WriteFile(p, []byte("kept\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := journal.Create(out, fp()); !errors.Is(err, journal.ErrExists) {
				t.Fatalf("Create over an existing %s = %v, want ErrExists", existing, err)
			}
			if got := readFile(t, p); got != "kept\n" {
				t.Errorf("a refused Create changed the %s to %q", existing, got)
			}
			// --overwrite: Remove, then Create starts afresh.
			if err := journal.Remove(out); err != nil {
				t.Fatal(err)
			}
			if _, err := journal.Create(out, fp()); err != nil {
				t.Fatalf("Create after Remove: %v", err)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	out := outPath(t)
	all := []string{out, journal.Path(out), journal.Path(out) + ".tmp"}
	for _, p := range all {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := filepath.Join(filepath.Dir(out), "other.jsonl")
	if err := os.WriteFile(keep, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := journal.Remove(out); err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists: %v", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Remove touched another file: %v", err)
	}
	// Nothing left to remove is not an error.
	if err := journal.Remove(out); err != nil {
		t.Errorf("Remove with nothing to remove = %v", err)
	}
}
