package tokenizer

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/tokens"
)

// prepend is Prepend: on a non-empty string, the text goes before the
// first char, every char of it aligned to that first char
// (NormalizedString::prepend).
type prepend struct{ s string }

func parsePrepend(raw json.RawMessage) (normalizer, error) {
	var c struct {
		Type    string  `json:"type"`
		Prepend *string `json:"prepend"`
	}
	if err := hfjson.Strict(raw, &c, "Prepend normalizer"); err != nil {
		return nil, err
	}
	if c.Prepend == nil {
		return nil, fmt.Errorf("Prepend normalizer: prepend is required")
	}
	return prepend{s: *c.Prepend}, nil
}

func (p prepend) normalize(n *normalized) {
	if n.s == "" || p.s == "" {
		return
	}
	align := make([]tokens.Span, 0, len(p.s)+len(n.align))
	for range len(p.s) {
		align = append(align, n.align[0])
	}
	n.s, n.align = p.s+n.s, append(align, n.align...)
}
