package tokenizer

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
)

// realTokenizers are tokenizer.json files written by others (older
// tokenizers versions: a model without "type", Metaspace's old options),
// kept outside the repository in ../shared/real-tokenizers/NAME; their
// goldens, ids and offsets only, are testdata/real/NAME.golden.json, made by
// npm tokenizers from the same files (make tokenizer-real-goldens).
var realTokenizers = []string{"roberta-base", "t5-small"}

// realTokenizerDir is ../shared/real-tokenizers/name. Missing, the test
// skips naming the path, and fails under CI=true (testenv.Need): CI must
// not pass these checks by skipping.
func realTokenizerDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := testenv.RealTokenizer(name)
	testenv.Need(t, err)
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
			checkGoldenFile(t, tk, filepath.Join("testdata", "real", name+".golden.json"))
		})
	}
}

// TestRealTokenizerSources: every real tokenizer file present is the one
// testdata/real/SOURCES.md lists (its SHA-256), so a folder filled by hand
// from the repositories named there is the one the goldens were made from.
func TestRealTokenizerSources(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "real", "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]map[string]string{} // folder -> file -> SHA-256
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 6 || len(cells[5]) != 64 {
			continue
		}
		if files[cells[0]] == nil {
			files[cells[0]] = map[string]string{}
		}
		files[cells[0]][cells[1]] = cells[5]
	}
	if len(files) < 6 {
		t.Fatalf("SOURCES.md lists %d folders, want the 6 the tests read", len(files))
	}
	for folder, want := range files {
		t.Run(folder, func(t *testing.T) {
			dir, err := testenv.RealTokenizer(folder)
			testenv.Need(t, err)
			for name, sum := range want {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != sum {
					t.Errorf("%s: SHA-256 %s, SOURCES.md says %s", name, got, sum)
				}
			}
		})
	}
}
