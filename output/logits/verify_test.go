package logits

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/partfolder"
)

// TestOpenPartsRefuses: a resume refuses a folder that is not the one the
// journal describes, names the parts at fault, and removes nothing.
func TestOpenPartsRefuses(t *testing.T) {
	rows := genRows(30)
	write := func(dir, run string, parts int) string {
		p, err := OpenParts(dir, 0, "", Options{Run: run})
		if err != nil {
			t.Fatal(err)
		}
		for i := range parts {
			if err := p.Write(rows[i*10 : i*10+10]); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Seal(); err != nil {
				t.Fatal(err)
			}
		}
		return p.Digest()
	}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  []string
	}{
		{"folder deleted", func(t *testing.T, dir string) { os.RemoveAll(dir) }, []string{"missing part-00000.parquet, part-00001.parquet, part-00002.parquet"}},
		{"one part deleted", func(t *testing.T, dir string) { os.Remove(partfolder.Path(dir, 1)) }, []string{"missing part-00001.parquet"}},
		{"another run's folder", func(t *testing.T, dir string) {
			os.RemoveAll(dir)
			write(dir, "r2", 3)
		}, []string{"another run: part-00000.parquet, part-00001.parquet, part-00002.parquet"}},
		{"another run's later part", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "other")
			write(other, "r2", 1)
			if err := os.Rename(partfolder.Path(other, 0), partfolder.Path(dir, 3)); err != nil {
				t.Fatal(err)
			}
		}, []string{"another run: part-00003.parquet"}},
		{"part replaced by another of this run", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "other")
			write(other, "r1", 1)
			if err := os.Rename(partfolder.Path(other, 0), partfolder.Path(dir, 2)); err != nil {
				t.Fatal(err)
			}
		}, []string{"not the ones the journal recorded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "logits")
			digest := write(dir, "r1", 3)
			tc.spoil(t, dir)
			before, _ := os.ReadDir(dir)
			_, err := OpenParts(dir, 3, digest, Options{Run: "r1"})
			if !errors.Is(err, ErrParts) {
				t.Fatalf("OpenParts = %v, want ErrParts", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not say %q:\n%v", w, err)
				}
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("a refused folder changed: %d files, then %d", len(before), len(after))
			}
		})
	}
}

// TestOpenPartsKeepsItsOwn: this run's parts sealed after the last
// checkpoint are removed (a crash between sealing and journaling).
func TestOpenPartsKeepsItsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logits")
	p, err := OpenParts(dir, 0, "", Options{Run: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	rows := genRows(20)
	var digest string
	for i := range 2 {
		if err := p.Write(rows[i*10 : i*10+10]); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Seal(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			digest = p.Digest()
		}
	}
	if _, err := OpenParts(dir, 1, digest, Options{Run: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partfolder.Path(dir, 1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the part sealed after the checkpoint is still there: %v", err)
	}
}
