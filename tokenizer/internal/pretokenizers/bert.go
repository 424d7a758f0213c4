package pretokenizers

import (
	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/stage"
)

// Bert is BertPreTokenizer: split on whitespace (removed),
// then isolate every punctuation char.
type Bert struct{}

func (Bert) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	var words []stage.Normalized
	words = stage.SplitChars(n, chars.IsWhitespace, stage.Removed, words)
	for _, w := range words {
		dst = stage.SplitChars(w, chars.IsBertPunc, stage.Isolated, dst)
	}
	return dst
}
