package normalizers

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// stripAccents is StripAccents: NormalizedString::filter dropping every
// char the crate unicode-normalization-alignments calls a combining mark
// (General_Category Mark: Mn, Mc and Me, in its Unicode tables). It does
// not decompose first: only marks already separate go.
type stripAccents struct{}

func (stripAccents) Normalize(n *stage.Normalized) {
	if isASCII(n.S) {
		return // no ASCII char is a mark
	}
	n.MapRunes(func(r rune, dst []rune) []rune {
		if isCombiningMark(r) {
			return dst
		}
		return append(dst, r)
	})
}

// isCombiningMark is the crate's is_combining_mark.
func isCombiningMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	if m, ok := chars.Mark[r]; ok {
		return m
	}
	return unicode.Is(unicode.M, r)
}

// strip is Strip: leading and/or trailing chars with Rust's
// char::is_whitespace removed; the rest keep their alignments.
type strip struct{ left, right bool }

func parseStrip(raw json.RawMessage) (stage.Normalizer, error) {
	// Both fields are required by tokenizers' deserializer.
	var c struct {
		Type  string `json:"type"`
		Left  *bool  `json:"strip_left"`
		Right *bool  `json:"strip_right"`
	}
	if err := hfjson.Strict(raw, &c, "Strip normalizer"); err != nil {
		return nil, err
	}
	if c.Left == nil || c.Right == nil {
		return nil, fmt.Errorf("Strip normalizer: strip_left and strip_right are both required")
	}
	return strip{left: *c.Left, right: *c.Right}, nil
}

func (s strip) Normalize(n *stage.Normalized) {
	a, b := 0, len(n.S)
	if s.left {
		a = len(n.S) - len(strings.TrimLeftFunc(n.S, chars.IsWhitespace))
	}
	if s.right {
		b = max(a, len(strings.TrimRightFunc(n.S, chars.IsWhitespace)))
	}
	if a == 0 && b == len(n.S) {
		return
	}
	n.S, n.Align = n.S[a:b], n.Align[a:b:b]
}
