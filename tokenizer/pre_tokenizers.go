package tokenizer

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// The pre-tokenizers tokenizer.json may name (tokenizers'
// pre_tokenizers/), each in the file named after its Rust module:
// BertPreTokenizer (pre_tokenizers_bert.go), ByteLevel
// (pre_tokenizers_byte_level.go), Metaspace (pre_tokenizers_metaspace.go),
// WhitespaceSplit and Whitespace (pre_tokenizers_whitespace.go),
// Punctuation (pre_tokenizers_punctuation.go), Digits
// (pre_tokenizers_digits.go) and Split (pre_tokenizers_split.go); Sequence
// is here. Most cut with NormalizedString::split (normalized_string.go).

const supportedPreTok = "BertPreTokenizer, ByteLevel, Metaspace, WhitespaceSplit, Whitespace, Punctuation, Digits, Split and Sequence"

// parsePreTokenizer is PreTokenizerWrapper's deserializer: each
// pre-tokenizer with exactly the fields tokenizers serializes.
func parsePreTokenizer(raw json.RawMessage) (stage.PreTokenizer, error) {
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
		return bertPreTokenizer{}, nil
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
		seq, err := hfjson.ParseSequence(raw, "pretokenizers", "Sequence pre_tokenizer", parsePreTokenizer)
		if err != nil {
			return nil, err
		}
		return sequenceOf(seq), nil
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

// sequenceOf applies pre-tokenizers one after the other
// (pre_tokenizers.Sequence).
type sequenceOf []stage.PreTokenizer

func (s sequenceOf) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
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
