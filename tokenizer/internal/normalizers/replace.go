package normalizers

import (
	"encoding/json"
	"fmt"
	"strings"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/onig"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// replace is Replace: every match of the pattern (an Oniguruma regex in
// HF; a literal string is escaped into one) becomes content. The chars of
// content are all aligned to the last byte of the match, or, for an empty
// match, to the char before it (NormalizedString::replace inserts them as
// transform_range insertions after the removed match); an empty match at
// the start aligns to the empty span where the piece begins.
type replace struct {
	re      *onig.Regex
	content string
}

func parseReplace(raw json.RawMessage) (stage.Normalizer, error) {
	var c struct {
		Type    string          `json:"type"`
		Pattern json.RawMessage `json:"pattern"`
		Content *string         `json:"content"`
	}
	if err := hfjson.Strict(raw, &c, "Replace normalizer"); err != nil {
		return nil, err
	}
	if c.Content == nil {
		return nil, fmt.Errorf("Replace normalizer: content is required")
	}
	re, err := onig.ParsePattern(c.Pattern, "Replace normalizer")
	if err != nil {
		return nil, err
	}
	return replace{re: re, content: *c.Content}, nil
}

func (r replace) Normalize(n *stage.Normalized) {
	if n.S == "" {
		// Pattern::find_matches on an empty string reports no match.
		return
	}
	matches := r.re.FindAll(n.S)
	if len(matches) == 0 {
		return
	}
	var out strings.Builder
	align := make([]tokens.Span, 0, len(n.Align))
	last := 0
	for _, m := range matches {
		out.WriteString(n.S[last:m[0]])
		align = append(align, n.Align[last:m[0]]...)
		a := tokens.Span{Start: n.Base, End: n.Base}
		if m[1] > 0 {
			a = n.Align[m[1]-1]
		}
		out.WriteString(r.content)
		for range len(r.content) {
			align = append(align, a)
		}
		last = m[1]
	}
	out.WriteString(n.S[last:])
	align = append(align, n.Align[last:]...)
	n.S, n.Align = out.String(), align
}
