package sim

import (
	"hash/fnv"
	"strconv"
	"strings"
	"unicode"

	"qa-shard/qa"
)

// Ids of WordTokenizer: hashed words land in [wordBase, wordBase+wordSpan),
// inside a BERT vocabulary's size and above its special tokens.
const (
	wordBase = 1000
	wordSpan = 28000
)

// WordTokenizer is a stand-in for the real tokenizer when the model is
// simulated too: one token per whitespace-separated word, offsets in code
// points, word ids counting words. A word "#N" with 1 <= N < 1000 is a
// marker and gets id N exactly, below every hashed id, so a test can plant
// a token in one document and make a replica fail on it (fail-token=N);
// avoid the special ids of the vocabulary ([PAD] 0, 100-103 in BERT).
// It is pure, hence safe for concurrent use.
type WordTokenizer struct{}

// Encode tokenizes text; it never adds special tokens.
func (WordTokenizer) Encode(text string) qa.Tokens {
	var t qa.Tokens
	var pos, start int32
	begin := -1 // byte offset of the current word, -1 outside words
	flush := func(end int) {
		if begin < 0 {
			return
		}
		t.IDs = append(t.IDs, wordID(text[begin:end]))
		t.Offsets = append(t.Offsets, qa.Span{Start: start, End: pos})
		t.Words = append(t.Words, int32(len(t.Words)))
		begin = -1
	}
	for i, r := range text {
		if unicode.IsSpace(r) {
			flush(i)
		} else if begin < 0 {
			begin, start = i, pos
		}
		pos++
	}
	flush(len(text))
	return t
}

// wordID is the id WordTokenizer gives a word.
func wordID(w string) int32 {
	if n, err := strconv.Atoi(strings.TrimPrefix(w, "#")); err == nil && strings.HasPrefix(w, "#") && n >= 1 && n < wordBase {
		return int32(n)
	}
	h := fnv.New32a()
	h.Write([]byte(w))
	return wordBase + int32(h.Sum32()%wordSpan)
}
