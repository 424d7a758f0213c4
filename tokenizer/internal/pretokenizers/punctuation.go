package pretokenizers

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// punctuation is Punctuation: every char that is ASCII punctuation or
// Unicode P* (is_punc, the same class as BERT's) is a delimiter.
type punctuation struct{ b stage.Behavior }

func parsePunctuation(raw json.RawMessage) (stage.PreTokenizer, error) {
	const what = "Punctuation pre_tokenizer"
	var c struct {
		Type     string  `json:"type"`
		Behavior *string `json:"behavior"`
	}
	if err := hfjson.Strict(raw, &c, what); err != nil {
		return nil, err
	}
	p := punctuation{b: stage.Isolated} // serde default
	if c.Behavior != nil {
		b, err := stage.ParseBehavior(*c.Behavior)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		p.b = b
	}
	return p, nil
}

func (p punctuation) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	return stage.SplitChars(n, chars.IsBertPunc, p.b, dst)
}
