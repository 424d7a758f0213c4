package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/format"
)

func names(files []File) string {
	var n []string
	for _, f := range files {
		n = append(n, f.Name)
	}
	return strings.Join(n, " ")
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"x/b.jsonl", "x/a.jsonl.gz", "x/sub/c.parquet", "x/_SUCCESS", "x/.hidden.jsonl", "x/notes.txt",
		"x/.git/d.jsonl", "y/b.jsonl", "z/1.ndjson.zst", "z/2.jsonl", "plain.data"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte("{}\n"), 0o644))
	}
	at := func(p string) string { return filepath.Join(dir, p) }
	// One file reached by other paths, and a folder by a link.
	must(t, os.Symlink(at("x/b.jsonl"), at("soft.jsonl")))
	must(t, os.Link(at("x/b.jsonl"), at("hard.jsonl")))
	must(t, os.Symlink(at("z"), at("zlink")))
	tests := []struct {
		name  string
		args  []string
		names string
		err   string
	}{
		{"folder sorted, recursive, hidden and _ skipped", []string{at("x")}, "a.jsonl.gz b.jsonl sub/c.parquet", ""},
		{"args in order given", []string{at("z"), at("x/b.jsonl")}, "1.ndjson.zst 2.jsonl b.jsonl", ""},
		{"a file is read whatever its name", []string{at("plain.data")}, "plain.data", ""},
		{"glob sorted, named under its folders", []string{at("*/b.jsonl")}, "x/b.jsonl y/b.jsonl", ""},
		{"clashing names fall back to paths", []string{at("x/b.jsonl"), at("y/b.jsonl")}, filepath.ToSlash(at("x/b.jsonl")) + " " + filepath.ToSlash(at("y/b.jsonl")), ""},
		{"a file twice", []string{at("x/b.jsonl"), at("x")}, "", "given twice"},
		{"a file and a symbolic link to it", []string{at("x/b.jsonl"), at("soft.jsonl")}, "", "are the same file"},
		{"a file and a hard link to it", []string{at("hard.jsonl"), at("x")}, "", "are the same file"},
		{"a symbolic link to a folder is the folder", []string{at("zlink")}, "1.ndjson.zst 2.jsonl", ""},
		{"a folder and a link to it", []string{at("z"), at("zlink")}, "", "are the same file"},
		{"a glob through a linked folder", []string{at("zlink/*.jsonl")}, "2.jsonl", ""},
		{"a folder by a roundabout path", []string{at("x/sub/..") + "/../y/../z/../x/sub/.."}, "a.jsonl.gz b.jsonl sub/c.parquet", ""},
		{"missing", []string{at("nope.jsonl")}, "", "cannot open --input"},
		{"glob without match", []string{at("*.parquet")}, "", "matches no file"},
		{"stdin alone", []string{"-", at("x")}, "", "cannot be combined"},
		{"stdin", []string{"-"}, "stdin", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := Find(tt.args)
			if tt.err != "" {
				if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrInput with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(files); got != tt.names {
				t.Errorf("names %q, want %q", got, tt.names)
			}
		})
	}
	empty := filepath.Join(dir, "empty")
	must(t, os.MkdirAll(filepath.Join(empty, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(empty, "readme.txt"), nil, 0o644))
	if _, err := Find([]string{empty}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "holds no input files") {
		t.Errorf("folder without inputs: %v", err)
	}
}

// TestSniff: the magic bytes win over the extension.
func TestSniff(t *testing.T) {
	dir := t.TempDir()
	paths := mixed(t, dir)
	misnamed := filepath.Join(dir, "really-gzip.jsonl")
	b, _ := os.ReadFile(paths[1])
	must(t, os.WriteFile(misnamed, b, 0o644))
	files, err := Find([]string{misnamed, paths[2], paths[4], paths[0]})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []format.Format{format.Gzip, format.Parquet, format.Zstd, format.JSONL} {
		if err := sniff(&files[i]); err != nil || files[i].Format != want {
			t.Errorf("%s: %v (%v), want %v", files[i].Name, files[i].Format, err, want)
		}
	}
}
