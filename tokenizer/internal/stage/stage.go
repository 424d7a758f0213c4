// Package stage is what every stage of a Hugging Face tokenizer shares:
// the normalized string with its alignments to the original text
// (tokenizers' NormalizedString, normalized.go) and the interfaces of the
// stages as tokenizer.json declares them (tokenizers' tokenizer/mod.rs):
// Normalizer, PreTokenizer and Model, with the pieces a model returns and
// the buffers an encode lends its stages. Package tokenizer's components
// implement them, and its general pipeline runs them.
package stage

import "qa-shard/tokenizer/tokens"

// Normalizer rewrites a text in place, keeping its alignments
// (tokenizers' Normalizer).
type Normalizer interface {
	Normalize(n *Normalized)
}

// PreTokenizer cuts each piece into words, and may rewrite them as it goes
// (ByteLevel maps bytes to chars, Metaspace spaces to ▁): tokenizers'
// PreTokenizer over the splits of a PreTokenizedString. Empty pieces are
// dropped, as PreTokenizedString::split drops them.
type PreTokenizer interface {
	Split(n Normalized, dst []Normalized) []Normalized
}

// Model turns one word into tokens (tokenizers' Model).
type Model interface {
	// Tokenize appends the tokens of word (valid UTF-8) to dst, each with
	// a byte range of word.
	Tokenize(word string, dst []Piece) []Piece
	// TokenToID and idToToken look the vocabulary up.
	TokenToID(tok string) (int32, bool)
	IDToToken(id int32) (string, bool)
	// Size is one more than the largest id in the vocabulary.
	Size() int
	// Kind is the model's type as tokenizer.json names it (WordPiece,
	// BPE, Unigram), for Components.
	Kind() string
}

// Piece is one token of a word: an id and a byte range of the word.
type Piece struct {
	ID         int32
	Start, End int32
}

// Buffers are what one encode lends its stages, back in a pool when
// it returns: nothing built in them may outlive the call (the tokens take
// copies of the offsets, the added tokens' matches are strings), and what
// a normalizer builds in them lives until the next segment is normalized.
// None holds a pointer, so a pooled one keeps nothing alive.
type Buffers struct {
	Text  []tokens.Span // the alignments of the whole text (splitRaw)
	Norm  []tokens.Span // a normalizer's alignments of one segment
	Bytes []byte        // a normalizer's text while it is built
}

// BufferedNormalizer is a normalizer that can build its result in an
// encode's buffers (b.norm and b.bytes).
type BufferedNormalizer interface {
	NormalizeBuffered(n *Normalized, b *Buffers)
}
