package pin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/errkind"
)

// TestChanges: every change a pin finds (a file removed, replaced,
// truncated or grown; a folder replaced; a sealed part resized) is
// ErrChanged, of one kind, worded as it happened.
func TestChanges(t *testing.T) {
	part := func(dir string, i int) string { return filepath.Join(dir, fmt.Sprintf("part-%d", i)) }
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(dir, file string)
		folder bool // the folder's pin finds it, not the file's
		want   func(dir, file string) string
	}{
		{"removed", func(_, file string) { os.Remove(file) }, false,
			func(_, file string) string { return file + " was removed (" }},
		{"replaced", func(dir, file string) {
			write(file+".new", "abc")
			must(t, os.Rename(file+".new", file))
		}, false, func(_, file string) string { return file + " was replaced by another file" }},
		{"truncated", func(_, file string) { write(file, "ab") }, false,
			func(_, file string) string { return file + " has 2 bytes, and 3 were written" }},
		{"part resized", func(dir, _ string) { write(part(dir, 0), "xyzw") }, true,
			func(dir, _ string) string { return part(dir, 0) + " has 4 bytes, and 3 were sealed" }},
		{"folder replaced", func(dir, _ string) {
			must(t, os.Rename(dir, dir+".old"))
			must(t, os.Mkdir(dir, 0o755))
		}, true, func(dir, _ string) string { return "the folder " + dir + " was replaced by another folder" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "a")
			write(file, "abc")
			write(part(dir, 0), "xyz")
			f, err := Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			folder, err := Parts(dir, 1, part)
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(f.Check(3), folder.Check()); err != nil {
				t.Fatalf("unchanged: %v", err)
			}
			tc.change(dir, file)
			err = f.Check(-1)
			if tc.folder {
				err = folder.Check()
			}
			want := tc.want(dir, file)
			if !errors.Is(err, ErrChanged) || errkind.Of(err) != errkind.Internal || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%v (kind %v), want ErrChanged starting %q", err, errkind.Of(err), want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
