package shard

import (
	"errors"
	"os"
	"path/filepath"
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
	if first, end, err := Block(file, Rank{World: 1}); err != nil || first != 0 || end != 3 {
		t.Errorf("single process: [%d, %d) %v, want [0, 3)", first, end, err)
	}
	if first, end, err := Block("-", Rank{World: 1}); err != nil || first != 0 || end != 0 {
		t.Errorf("standard input: [%d, %d) %v, want [0, 0): not counted", first, end, err)
	}
	if _, _, err := Block("-", Rank{Rank: 1, World: 2}); !errors.Is(err, ErrRank) {
		t.Errorf("ranks on standard input: %v, want ErrRank", err)
	}
	var next int64
	for r := range 2 {
		first, end, err := Block(file, Rank{Rank: r, World: 2})
		if err != nil || first != next {
			t.Fatalf("rank %d: [%d, %d) %v, want to start at %d", r, first, end, err, next)
		}
		next = end
	}
	if next != 3 {
		t.Errorf("ranks cover [0, %d), want [0, 3)", next)
	}
}
