package tokenizer

import (
	"encoding/json"
	"fmt"
	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
)

// punctuation is Punctuation: every char that is ASCII punctuation or
// Unicode P* (is_punc, the same class as BERT's) is a delimiter.
type punctuation struct{ b behavior }

func parsePunctuation(raw json.RawMessage) (preTokenizer, error) {
	const what = "Punctuation pre_tokenizer"
	var c struct {
		Type     string  `json:"type"`
		Behavior *string `json:"behavior"`
	}
	if err := hfjson.Strict(raw, &c, what); err != nil {
		return nil, err
	}
	p := punctuation{b: isolated} // serde default
	if c.Behavior != nil {
		b, err := parseBehavior(*c.Behavior)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		p.b = b
	}
	return p, nil
}

func (p punctuation) split(n normalized, dst []normalized) []normalized {
	return splitChars(n, chars.IsBertPunc, p.b, dst)
}
