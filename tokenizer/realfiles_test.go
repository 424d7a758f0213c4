package tokenizer

import (
	"path/filepath"
	"testing"

	"qa-shard/internal/testenv"
)

// realTokenizers are tokenizer.json files written by others (older
// tokenizers versions: a model without "type", Metaspace's old options),
// kept outside the repository in ../shared/real-tokenizers/NAME; their
// goldens, ids and offsets only, are testdata/real/NAME.golden.json, made by
// npm tokenizers from the same files (make tokenizer-real-goldens).
var realTokenizers = []string{"roberta-base", "t5-small"}

// realTokenizerDir is ../shared/real-tokenizers/name. Missing, the test
// fails naming the path: these checks must not pass by skipping.
func realTokenizerDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := testenv.RealTokenizer(name)
	if err != nil {
		t.Fatal(err)
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
			checkGoldenFile(t, tk, filepath.Join("testdata", "real", name+".golden.json"))
		})
	}
}
