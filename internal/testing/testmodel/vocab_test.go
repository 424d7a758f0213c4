package testmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
)

func loadBERTVocab(t *testing.T) []string {
	t.Helper()
	path, err := testenv.VocabJSON()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vocab, err := ConvertVocab(f)
	if err != nil {
		t.Fatal(err)
	}
	return vocab
}

func TestConvertVocabKnownIDs(t *testing.T) {
	vocab := loadBERTVocab(t)
	if len(vocab) != BERTVocabSize {
		t.Fatalf("len = %d, want %d", len(vocab), BERTVocabSize)
	}
	want := map[int]string{
		0: "[PAD]", 1: "[unused0]", 2: "[unused1]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]",
		103: "[MASK]", 104: "[unused99]", 998: "[unused993]",
		999: "!", 1000: "\"", 1001: "#", 1031: "[", 1996: "the", 2015: "##s",
		29612: "##!", 29634: "##[", 30521: "##～",
	}
	for id, tok := range want {
		if vocab[id] != tok {
			t.Errorf("vocab[%d] = %q, want %q", id, vocab[id], tok)
		}
	}
	seen := make(map[string]bool, len(vocab))
	for id, tok := range vocab {
		if seen[tok] {
			t.Errorf("duplicate %q at id %d", tok, id)
		}
		seen[tok] = true
		if strings.Contains(tok, wordStart) {
			t.Errorf("id %d %q still holds the word-start marker", id, tok)
		}
	}
}

// TestConvertVocabMatchesVocabTxt checks the whole conversion at once: the
// SHA-256 below is that of bert-base-uncased's published vocab.txt (one token
// a line, trailing newline), the same file that sugarme/tokenizer
// v0.3.0 ships as pretrained/model/bert-base-uncased-vocab.txt.
func TestConvertVocabMatchesVocabTxt(t *testing.T) {
	const want = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
	h := sha256.New()
	for _, tok := range loadBERTVocab(t) {
		h.Write([]byte(tok + "\n"))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("sha256 of the converted vocab.txt = %s, want %s", got, want)
	}
}

func TestConvertVocabRejects(t *testing.T) {
	pad := func(entries ...string) string {
		all := make([]string, BERTVocabSize)
		for i := range all {
			all[i] = `"▁w` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + `"`
		}
		copy(all, entries)
		return "[" + strings.Join(all, ",") + "]"
	}
	cases := map[string]string{
		"not json":       "{",
		"too short":      `["[PAD]","▁"]`,
		"bare marker":    pad(`"[PAD]"`, `"▁"`, `"▁"`),
		"empty entry":    pad(`"[PAD]"`, `""`),
		"duplicate word": pad(`"▁a"`, `"▁a"`),
		"dup via ##":     pad(`"▁##a"`, `"a"`),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := ConvertVocab(strings.NewReader(in)); err == nil {
				t.Fatalf("no error")
			}
		})
	}
	if _, err := ConvertVocab(strings.NewReader(pad(`"[PAD]"`, `"▁"`))); err != nil {
		t.Fatalf("well-formed synthetic vocabulary rejected: %v", err)
	}
}
