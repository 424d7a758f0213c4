// Package normalizers holds the normalizers tokenizer.json may name
// (tokenizers' normalizers/), each in the file named after its Rust
// module: BertNormalizer (bert.go), Precompiled (precompiled.go), NFC,
// NFD, NFKC and NFKD (unicode.go), Lowercase (lowercase.go), StripAccents
// and Strip (strip.go), Replace (replace.go) and Prepend (prepend.go);
// Sequence and Parse, which reads any of them, are here. Every one of
// them rewrites a stage.Normalized in place. NFKCWords (nfkc_words.go) is
// the Japanese tokenizers' NFKC, word by word.
package normalizers

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

const supportedNormalizer = "BertNormalizer, Precompiled, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace, Prepend and Sequence"

// fieldlessNormalizers are the normalizers tokenizers serializes with no
// field but "type".
var fieldlessNormalizers = map[string]stage.Normalizer{
	"NFC":          UnicodeForm{Compose: true},
	"NFD":          UnicodeForm{},
	"NFKC":         UnicodeForm{Compat: true, Compose: true},
	"NFKD":         UnicodeForm{Compat: true},
	"Lowercase":    Lowercase{},
	"StripAccents": stripAccents{},
}

// Parse is NormalizerWrapper's deserializer: each normalizer
// with exactly the fields tokenizers serializes.
func Parse(raw json.RawMessage) (stage.Normalizer, error) {
	if hfjson.IsNull(raw) {
		return nil, nil
	}
	typ, err := hfjson.TypeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch typ {
	case "BertNormalizer":
		n, err := parseBertNormalizer(raw)
		return Bert{Config: n}, err
	case "Sequence":
		seq, err := hfjson.ParseSequence(raw, "normalizers", "Sequence normalizer", Parse)
		if err != nil {
			return nil, err
		}
		return Sequence(seq), nil
	case "Precompiled":
		return parsePrecompiled(raw)
	case "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents":
		if err := hfjson.NoOptions(raw, typ+" normalizer"); err != nil {
			return nil, err
		}
		return fieldlessNormalizers[typ], nil
	case "Strip":
		return parseStrip(raw)
	case "Prepend":
		return parsePrepend(raw)
	case "Replace":
		return parseReplace(raw)
	}
	return nil, hfjson.Unsupported("normalizer", typ, supportedNormalizer)
}

// Sequence is Sequence.Sequence: each normalizer in turn.
type Sequence []stage.Normalizer

func (s Sequence) Normalize(n *stage.Normalized) {
	for _, x := range s {
		x.Normalize(n)
	}
}

// The Sequence and NFKC-by-words build in an encode's buffers: the
// pipeline finds them by a type assertion, which a misspelt method would
// fail silently.
var (
	_ stage.BufferedNormalizer = Sequence(nil)
	_ stage.BufferedNormalizer = NFKCWords{}
)

// NormalizeBuffered is normalize lending the buffers to the first
// normalizer that can use them (a second would overwrite the first's
// result while reading it).
func (s Sequence) NormalizeBuffered(n *stage.Normalized, b *stage.Buffers) {
	lent := false
	for _, x := range s {
		if bx, ok := x.(stage.BufferedNormalizer); ok && !lent {
			bx.NormalizeBuffered(n, b)
			lent = true
			continue
		}
		x.Normalize(n)
	}
}

// isASCII says whether s is all ASCII, where the per-char normalizers are
// byte for byte.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
