//go:build parity

package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
)

// TestParityCorpus compares Encode with Hugging Face on the real paragraphs
// testdata/parity-corpus.mjs collected (see the commands at its top).
func TestParityCorpus(t *testing.T) {
	path := os.Getenv("QA_SHARD_PARITY_CORPUS")
	if path == "" {
		t.Fatal("set QA_SHARD_PARITY_CORPUS to the output of testdata/parity-corpus.mjs")
	}
	tk := bertTokenizer(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	docs, tokens, _, bad := checkCorpus(t, tk, sc)
	if docs < 1000 {
		t.Fatalf("only %d documents in %s", docs, path)
	}
	fmt.Printf("parity corpus: %d documents, %d tokens, %d mismatching documents\n", docs, tokens, bad)
}

// checkCorpus encodes every document of a reference corpus (one JSON line
// each: text and Hugging Face's ids, word ids and offsets) and counts the
// documents that differ, reporting the first ten.
func checkCorpus(t *testing.T, tk *Tokenizer, sc *bufio.Scanner) (docs, tokens, size, bad int) {
	t.Helper()
	for sc.Scan() {
		var d struct {
			Text    string     `json:"text"`
			IDs     []int32    `json:"ids"`
			Words   []int32    `json:"words"`
			Offsets [][2]int32 `json:"offsets"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("document %d: %v", docs, err)
		}
		docs++
		tokens += len(d.IDs)
		size += len(d.Text)
		got := tk.Encode(d.Text)
		offs := make([][2]int32, got.Len())
		for i, o := range got.Offsets {
			offs[i] = [2]int32{o.Start, o.End}
		}
		if !slices.Equal(got.IDs, d.IDs) || !slices.Equal(got.Words, d.Words) || !slices.Equal(offs, d.Offsets) {
			bad++
			if bad <= 10 {
				t.Errorf("document %d differs: %.200q", docs, d.Text)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs, tokens, size, bad
}
