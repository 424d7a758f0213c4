package pretokenizers

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// digits is Digits: chars that are Rust's char::is_numeric (Nd, Nl, No)
// each isolated, or in runs (Contiguous).
type digits struct{ individual bool }

func parseDigits(raw json.RawMessage) (stage.PreTokenizer, error) {
	const what = "Digits pre_tokenizer"
	var c struct {
		Type       string `json:"type"`
		Individual *bool  `json:"individual_digits"`
	}
	if err := hfjson.Strict(raw, &c, what); err != nil {
		return nil, err
	}
	if c.Individual == nil {
		// tokenizers' deserializer requires it too.
		return nil, fmt.Errorf("%s: individual_digits is required", what)
	}
	return digits{individual: *c.Individual}, nil
}

func (d digits) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	b := stage.Contiguous
	if d.individual {
		b = stage.Isolated
	}
	return stage.SplitChars(n, isRustNumeric, b, dst)
}

// isRustNumeric is char::is_numeric.
func isRustNumeric(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r) || unicode.Is(chars.RustNumericExtra, r)
}
