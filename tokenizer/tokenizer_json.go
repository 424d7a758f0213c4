package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"qa-shard/internal/errkind"
)

// ErrUnsupported marks a tokenizer.json that uses a component or an option
// this package does not reproduce exactly; it is refused, never
// approximated.
var ErrUnsupported = errkind.NewInternal("unsupported tokenizer")

// fileConfig is the top level of tokenizer.json; every component stays raw
// until its own parser reads it.
type fileConfig struct {
	Version       string             `json:"version"`
	Truncation    json.RawMessage    `json:"truncation"`
	Padding       json.RawMessage    `json:"padding"`
	AddedTokens   []addedTokenConfig `json:"added_tokens"`
	Normalizer    json.RawMessage    `json:"normalizer"`
	PreTokenizer  json.RawMessage    `json:"pre_tokenizer"`
	Model         json.RawMessage    `json:"model"`
	PostProcessor json.RawMessage    `json:"post_processor"`
	Decoder       json.RawMessage    `json:"decoder"`
}

type addedTokenConfig struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// unsupported is the one sentence a refused component gets.
func unsupported(kind, typ, supported string) error {
	return fmt.Errorf("%w: %s %q is not supported (qa-shard reads %s)", ErrUnsupported, kind, typ, supported)
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// typeOf reads a component's "type".
func typeOf(raw json.RawMessage) (string, error) {
	var c struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", fmt.Errorf("decode: %w", err)
	}
	if c.Type == nil {
		return "", fmt.Errorf("a component without a \"type\": %.80s", raw)
	}
	return *c.Type, nil
}

// hasType says whether a component object has a "type" field.
func hasType(raw json.RawMessage) bool {
	var c struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(raw, &c) == nil && c.Type != nil
}

// strict decodes a component and refuses any field the struct does not
// know, so that an option this package would ignore is never ignored
// silently.
func strict(raw json.RawMessage, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("%w: %s has the option %s, which qa-shard does not reproduce", ErrUnsupported, what, field)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

const (
	supportedModels     = "WordPiece, BPE and Unigram"
	supportedNormalizer = "BertNormalizer, Precompiled, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace, Prepend and Sequence"
	supportedPreTok     = "BertPreTokenizer, ByteLevel, Metaspace, WhitespaceSplit, Whitespace, Punctuation, Digits, Split and Sequence"
)

func parseModel(raw json.RawMessage) (model, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("model: missing")
	}
	if !hasType(raw) {
		return modelByShape(raw)
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	switch typ {
	case "WordPiece":
		return parseWordPiece(raw)
	case "BPE":
		return parseBPE(raw)
	case "Unigram":
		return parseUnigram(raw)
	}
	return nil, unsupported("model", typ, supportedModels)
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch typ {
	case "BertNormalizer":
		n, err := parseBertNormalizer(raw)
		return bertNormalizer{n: n}, err
	case "Sequence":
		var c struct {
			Type        string            `json:"type"`
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := strict(raw, &c, "Sequence normalizer"); err != nil {
			return nil, err
		}
		var seq normalizers
		for _, r := range c.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "Precompiled":
		return parsePrecompiled(raw)
	case "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Strip", "Replace", "Prepend":
		return parseSimpleNormalizer(typ, raw)
	}
	return nil, unsupported("normalizer", typ, supportedNormalizer)
}

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch typ {
	case "BertPreTokenizer":
		return bertPreTokenizer{}, strict(raw, &struct {
			Type string `json:"type"`
		}{}, "BertPreTokenizer")
	case "Sequence":
		var c struct {
			Type          string            `json:"type"`
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}
		if err := strict(raw, &c, "Sequence pre_tokenizer"); err != nil {
			return nil, err
		}
		var seq sequenceOf
		for _, r := range c.PreTokenizers {
			p, err := parsePreTokenizer(r)
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	case "ByteLevel":
		return parseByteLevel(raw)
	case "Metaspace":
		return parseMetaspace(raw)
	case "WhitespaceSplit", "Whitespace", "Punctuation", "Digits", "Split":
		return parseSplitter(typ, raw)
	}
	return nil, unsupported("pre_tokenizer", typ, supportedPreTok)
}
