// Package hfjson reads the JSON of Hugging Face tokenizers' components
// as tokenizers serializes them: strictly (an option it would not
// reproduce is refused, never ignored: ErrUnsupported), a component's
// "type", its Sequence, and numbers as serde_json reads them.
package hfjson

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
var ErrUnsupported = errkind.NewInternal("Unsupported tokenizer")

// Unsupported is the one sentence a refused component gets.
func Unsupported(kind, typ, supported string) error {
	return fmt.Errorf("%w: %s %q is not supported (qa-shard reads %s)", ErrUnsupported, kind, typ, supported)
}

// IsNull says whether a component is absent (missing or null).
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// TypeOf reads a component's "type".
func TypeOf(raw json.RawMessage) (string, error) {
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

// HasType says whether a component object has a "type" field.
func HasType(raw json.RawMessage) bool {
	var c struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(raw, &c) == nil && c.Type != nil
}

// Strict decodes a component and refuses any field the struct does not
// know, so that an option this package would ignore is never ignored
// silently.
func Strict(raw json.RawMessage, v any, what string) error {
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

// NoOptions decodes a component that has no field but "type".
func NoOptions(raw json.RawMessage, what string) error {
	return Strict(raw, &struct {
		Type string `json:"type"`
	}{}, what)
}

// OrTrue reads an optional flag whose default is true.
func OrTrue(b *bool) bool { return b == nil || *b }
