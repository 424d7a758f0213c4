package partfolder

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNames: only the names qa-shard writes are parts; another tool's
// part-* files (Spark's, Hadoop's checksums) are not.
func TestNames(t *testing.T) {
	if got := Name(3); got != "part-00003.parquet" {
		t.Errorf("Name(3) = %q", got)
	}
	for _, tt := range []struct {
		name   string
		index  int
		sealed bool
		part   bool
	}{
		{"part-00000.parquet", 0, true, true},
		{"part-00042.parquet", 42, true, true},
		{"part-00001.parquet.tmp", 0, false, true},
		{"part-x.parquet", 0, false, false},
		{"part-x.tmp", 0, false, false},
		{"part-00000-8b4e-c000.snappy.parquet", 0, false, false}, // Spark's
		{"part-00000.parquet.crc", 0, false, false},
		{"part-7.parquet", 0, false, false},
		{"_SUCCESS", 0, false, false},
		{"answers.parquet", 0, false, false},
		{"notes.txt", 0, false, false},
	} {
		i, ok := Index(tt.name)
		if ok != tt.sealed || (ok && i != tt.index) {
			t.Errorf("Index(%q) = %d, %v; want %d, %v", tt.name, i, ok, tt.index, tt.sealed)
		}
		if IsPart(tt.name) != tt.part {
			t.Errorf("IsPart(%q) = %v, want %v", tt.name, !tt.part, tt.part)
		}
	}
}

type closer struct{ err error }

func (c closer) Close() error { return c.err }

func create(t *testing.T, dir string, i int, body string) *Part {
	t.Helper()
	p, err := Create(Path(dir, i), func(name string) (File, error) { return os.Create(name) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, body); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

// TestSealOpenRemove: a part appears under its name only when sealed; a
// failed footer or an abort leaves nothing; Open removes what follows the
// kept parts; Remove leaves other files.
func TestSealOpenRemove(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		p := create(t, dir, i, "part")
		if got := names(t, dir); !slices.Contains(got, Name(i)+TempSuffix) || slices.Contains(got, Name(i)) {
			t.Fatalf("before Seal: %v", got)
		}
		if err := p.Seal(closer{}); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("footer failed")
	if err := create(t, dir, 3, "x").Seal(closer{boom}); !errors.Is(err, boom) {
		t.Fatalf("Seal with a failing footer: %v", err)
	}
	if err := create(t, dir, 3, "x").Abort(); err != nil {
		t.Fatal(err)
	}
	want := []string{Name(0), Name(1), Name(2)}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("after a failed seal and an abort: %v, want %v", got, want)
	}
	create(t, dir, 3, "left by a crash")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Open(dir, 2); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"notes.txt", Name(0), Name(1)}) {
		t.Fatalf("after Open(dir, 2): %v", got)
	}
	if l, err := List(dir); err != nil || !slices.Equal(l, []string{Path(dir, 0), Path(dir, 1)}) {
		t.Fatalf("List = %v, %v", l, err)
	}
	if err := Dir(dir).Sync(); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"notes.txt"}) {
		t.Fatalf("after Remove: %v", got)
	}
	if err := Remove(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Remove of a missing folder: %v", err)
	}
}

// TestForeign: Foreign names what is not a part, in a folder of parts
// mixed with another tool's files, and nothing for a missing folder.
func TestForeign(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"part-00000.parquet", "part-00001.parquet.tmp", "part-00000-8b4e-c000.snappy.parquet", "_SUCCESS"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "part-00002.parquet"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Foreign(dir)
	if want := []string{"_SUCCESS", "part-00000-8b4e-c000.snappy.parquet", "part-00002.parquet"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Foreign = %v, %v; want %v", got, err, want)
	}
	if got, err := Foreign(filepath.Join(dir, "missing")); err != nil || got != nil {
		t.Errorf("Foreign(missing) = %v, %v", got, err)
	}
}
