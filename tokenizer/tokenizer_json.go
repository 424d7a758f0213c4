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

// noOptions decodes a component that has no field but "type".
func noOptions(raw json.RawMessage, what string) error {
	return strict(raw, &struct {
		Type string `json:"type"`
	}{}, what)
}

// orTrue reads an optional flag whose default is true.
func orTrue(b *bool) bool { return b == nil || *b }
