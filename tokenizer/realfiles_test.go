package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
)

// realTokenizers are tokenizer.json files written by others (older
// tokenizers versions: a model without "type", Metaspace's old options),
// kept outside the repository in ../shared/real-tokenizers/NAME; their
// goldens, ids and offsets only, are testdata/real/NAME.golden.json, made by
// npm tokenizers from the same files (make tokenizer-real-goldens).
var realTokenizers = []string{"roberta-base", "t5-small"}

// realTokenizerDir is ../shared/real-tokenizers/name, relative to the
// repository root. Missing, the test fails naming the path: these checks
// must not pass by skipping.
func realTokenizerDir(t testing.TB, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatalf("no go.mod above %s", wd)
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", "real-tokenizers", name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the real tokenizer folder ../shared/real-tokenizers/%s (relative to the repository root) is missing: %v", name, err)
	}
	return dir
}

// TestRealTokenizerGolden: each real tokenizer.json loads and encodes every
// golden pair exactly as npm tokenizers does (each sequence, the pair and
// its windows at max_length 64, stride 16).
func TestRealTokenizerGolden(t *testing.T) {
	for _, name := range realTokenizers {
		t.Run(name, func(t *testing.T) {
			tk, err := Load(filepath.Join(realTokenizerDir(t, name), "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			pairs := loadGoldenFile(t, filepath.Join("testdata", "real", name+".golden.json"))
			windows := 0
			for _, p := range pairs {
				t.Run(p.Name, func(t *testing.T) {
					checkPair(t, tk, p)
					checkWindows(t, tk, p)
				})
				windows += len(p.Windows)
			}
			if len(pairs) < 80 || windows < 120 {
				t.Fatalf("%d golden pairs with %d windows: not the golden file the claim rests on", len(pairs), windows)
			}
		})
	}
}
