package tokenizer

import (
	"encoding/json"
	"fmt"
	"qa-shard/tokenizer/internal/hfjson"
)

// split is Split: the pattern's matches (or, inverted, what lies between
// them) are the delimiters, treated as the behavior says.
type split struct {
	re     *hfRegex
	b      behavior
	invert bool
}

func parseSplit(raw json.RawMessage) (preTokenizer, error) {
	const what = "Split pre_tokenizer"
	// Split's deserializer requires all three fields.
	var c struct {
		Type     string          `json:"type"`
		Pattern  json.RawMessage `json:"pattern"`
		Behavior *string         `json:"behavior"`
		Invert   *bool           `json:"invert"`
	}
	if err := hfjson.Strict(raw, &c, what); err != nil {
		return nil, err
	}
	if c.Pattern == nil || c.Behavior == nil || c.Invert == nil {
		return nil, fmt.Errorf("%s: pattern, behavior and invert are all required", what)
	}
	b, err := parseBehavior(*c.Behavior)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	re, err := parsePattern(c.Pattern, what)
	if err != nil {
		return nil, err
	}
	return split{re: re, b: b, invert: *c.Invert}, nil
}

func (p split) split(n normalized, dst []normalized) []normalized {
	if n.s == "" {
		return dst
	}
	var spans []span
	last := 0
	for _, m := range p.re.findAll(n.s) {
		if last < m[0] {
			spans = append(spans, span{a: last, b: m[0], match: p.invert})
		}
		spans = append(spans, span{a: m[0], b: m[1], match: !p.invert})
		last = m[1]
	}
	if last < len(n.s) {
		spans = append(spans, span{a: last, b: len(n.s), match: p.invert})
	}
	return splitSpans(n, spans, p.b, dst)
}
