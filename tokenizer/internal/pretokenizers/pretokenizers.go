// Package pretokenizers holds the pre-tokenizers tokenizer.json may name
// (tokenizers' pre_tokenizers/), each in the file named after its Rust
// module: BertPreTokenizer (bert.go), ByteLevel (byte_level.go),
// Metaspace (metaspace.go), WhitespaceSplit and Whitespace
// (whitespace.go), Punctuation (punctuation.go), Digits (digits.go) and
// Split (split.go); Sequence and Parse, which reads any of them, are here.
// Most cut with NormalizedString::split (stage.SplitSpans).
package pretokenizers

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

const supportedPreTok = "BertPreTokenizer, ByteLevel, Metaspace, WhitespaceSplit, Whitespace, Punctuation, Digits, Split and Sequence"

// Parse is PreTokenizerWrapper's deserializer: each
// pre-tokenizer with exactly the fields tokenizers serializes.
func Parse(raw json.RawMessage) (stage.PreTokenizer, error) {
	if hfjson.IsNull(raw) {
		return nil, nil
	}
	typ, err := hfjson.TypeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch typ {
	case "BertPreTokenizer":
		if err := hfjson.NoOptions(raw, "BertPreTokenizer"); err != nil {
			return nil, err
		}
		return Bert{}, nil
	case "WhitespaceSplit":
		if err := hfjson.NoOptions(raw, "WhitespaceSplit pre_tokenizer"); err != nil {
			return nil, err
		}
		return whitespaceSplit{}, nil
	case "Whitespace":
		if err := hfjson.NoOptions(raw, "Whitespace pre_tokenizer"); err != nil {
			return nil, err
		}
		return whitespaceWords{}, nil
	case "Sequence":
		seq, err := hfjson.ParseSequence(raw, "pretokenizers", "Sequence pre_tokenizer", Parse)
		if err != nil {
			return nil, err
		}
		return Sequence(seq), nil
	case "ByteLevel":
		return parseByteLevel(raw)
	case "Metaspace":
		return parseMetaspace(raw)
	case "Punctuation":
		return parsePunctuation(raw)
	case "Digits":
		return parseDigits(raw)
	case "Split":
		return parseSplit(raw)
	}
	return nil, hfjson.Unsupported("pre_tokenizer", typ, supportedPreTok)
}

// Sequence applies pre-tokenizers one after the other
// (pre_tokenizers.Sequence).
type Sequence []stage.PreTokenizer

func (s Sequence) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	cur := []stage.Normalized{n}
	for k, p := range s {
		if k == len(s)-1 {
			// The last one writes into dst: no copy of the words.
			first := len(dst)
			for _, c := range cur {
				dst = p.Split(c, dst)
			}
			kept := dst[:first]
			for _, c := range dst[first:] {
				if c.S != "" {
					kept = append(kept, c)
				}
			}
			return kept
		}
		next := make([]stage.Normalized, 0, len(n.S)/4+2)
		for _, c := range cur {
			next = p.Split(c, next)
		}
		cur = next
	}
	return append(dst, n)
}
