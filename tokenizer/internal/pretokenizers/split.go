package pretokenizers

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/onig"
	"qa-shard/tokenizer/internal/stage"
)

// split is Split: the pattern's matches (or, inverted, what lies between
// them) are the delimiters, treated as the behavior says.
type split struct {
	re     *onig.Regex
	b      stage.Behavior
	invert bool
}

func parseSplit(raw json.RawMessage) (stage.PreTokenizer, error) {
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
	b, err := stage.ParseBehavior(*c.Behavior)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	re, err := onig.ParsePattern(c.Pattern, what)
	if err != nil {
		return nil, err
	}
	return split{re: re, b: b, invert: *c.Invert}, nil
}

func (p split) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	if n.S == "" {
		return dst
	}
	var spans []stage.ByteRange
	last := 0
	for _, m := range p.re.FindAll(n.S) {
		if last < m[0] {
			spans = append(spans, stage.ByteRange{A: last, B: m[0], Match: p.invert})
		}
		spans = append(spans, stage.ByteRange{A: m[0], B: m[1], Match: !p.invert})
		last = m[1]
	}
	if last < len(n.S) {
		spans = append(spans, stage.ByteRange{A: last, B: len(n.S), Match: p.invert})
	}
	return stage.SplitSpans(n, spans, p.b, dst)
}
