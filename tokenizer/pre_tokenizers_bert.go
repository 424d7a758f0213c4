package tokenizer

import "qa-shard/tokenizer/internal/chars"

// bertPreTokenizer is BertPreTokenizer: split on whitespace (removed),
// then isolate every punctuation char.
type bertPreTokenizer struct{}

func (bertPreTokenizer) split(n normalized, dst []normalized) []normalized {
	var words []normalized
	words = splitChars(n, chars.IsWhitespace, removed, words)
	for _, w := range words {
		dst = splitChars(w, chars.IsBertPunc, isolated, dst)
	}
	return dst
}
