package normalizers

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// prepend is Prepend: on a non-empty string, the text goes before the
// first char, every char of it aligned to that first char
// (NormalizedString::prepend).
type prepend struct{ s string }

func parsePrepend(raw json.RawMessage) (stage.Normalizer, error) {
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

func (p prepend) Normalize(n *stage.Normalized) {
	if n.S == "" || p.s == "" {
		return
	}
	align := make([]tokens.Span, 0, len(p.s)+len(n.Align))
	for range len(p.s) {
		align = append(align, n.Align[0])
	}
	n.S, n.Align = p.s+n.S, append(align, n.Align...)
}
