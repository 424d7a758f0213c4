package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
)

// families are the tokenizer.json layouts built offline by
// tools/familyjson (make tokenizer-fixtures) from real
// tokenizer material: GPT-2's byte-level BPE for RoBERTa, ALBERT's
// SentencePiece Unigram model with its nmt_nfkc charsmap for the others.
var families = []string{"roberta", "xlmr", "deberta", "albert"}

// familyTokenizer loads one family's tokenizer.json from
// QA_SHARD_TOKENIZERS_DIR (set by make test).
func familyTokenizer(t testing.TB, family string) *Tokenizer {
	t.Helper()
	dir := os.Getenv("QA_SHARD_TOKENIZERS_DIR")
	if dir == "" {
		t.Fatal("QA_SHARD_TOKENIZERS_DIR is not set: run the tests with make test (it builds the family tokenizers with make tokenizer-fixtures)")
	}
	tk, err := Load(filepath.Join(dir, family, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestFamilyGolden: for every family, every golden pair (the BERT pairs
// and the hostile ones) encodes exactly as Hugging Face tokenizers encoded
// it: each sequence's ids, word ids and offsets, the whole pair's ids,
// type ids, sequence ids, word ids and offsets, and the same for every
// window cut at max_length 64 with stride 16.
func TestFamilyGolden(t *testing.T) {
	for _, fam := range families {
		t.Run(fam, func(t *testing.T) {
			tk := familyTokenizer(t, fam)
			checkGoldenFile(t, tk, filepath.Join("testdata", "families", fam+".golden.json"))
		})
	}
}

// checkGoldenFile checks every pair of a golden file and its windows
// (checkPair, checkWindows), and that the file is the full one the parity
// claim rests on (at least 80 pairs and 120 windows).
func checkGoldenFile(t *testing.T, tk *Tokenizer, path string) {
	t.Helper()
	pairs := loadGoldenFile(t, path)
	windows := 0
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			checkPair(t, tk, p)
			checkWindows(t, tk, p)
		})
		windows += len(p.Windows)
	}
	if len(pairs) < 80 || windows < 120 {
		t.Fatalf("%s: %d golden pairs with %d windows: not the golden file the parity claim rests on", path, len(pairs), windows)
	}
}
