package tokenizer

// bertPreTokenizer is BertPreTokenizer: split on whitespace (removed),
// then isolate every punctuation char.
type bertPreTokenizer struct{}

func (bertPreTokenizer) split(n normalized, dst []normalized) []normalized {
	var words []normalized
	words = splitChars(n, isWhitespace, removed, words)
	for _, w := range words {
		dst = splitChars(w, isBertPunc, isolated, dst)
	}
	return dst
}
