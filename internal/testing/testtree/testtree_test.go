package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiff: a file changed, one removed, one added and a link retargeted
// are each named; an untouched folder has no difference.
func TestDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "1")
	write("b", "2")
	if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	before, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Of(dir); len(before.Diff(again)) != 0 {
		t.Fatalf("an untouched folder differs: %v", before.Diff(again))
	}
	write("a", "changed")
	write("c", "new")
	if err := os.Remove(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("c", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	after, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := before.Diff(after)
	want := []string{"a changed", "b went", "c appeared", "l changed"}
	if len(got) != len(want) {
		t.Fatalf("diff %q, want %d entries like %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("diff[%d] = %q, want it to start %q", i, got[i], w)
		}
	}
}
