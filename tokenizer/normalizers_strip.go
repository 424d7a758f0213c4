package tokenizer

import (
	"encoding/json"
	"fmt"
	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"strings"
	"unicode"
)

// stripAccents is StripAccents: NormalizedString::filter dropping every
// char the crate unicode-normalization-alignments calls a combining mark
// (General_Category Mark: Mn, Mc and Me, in its Unicode tables). It does
// not decompose first: only marks already separate go.
type stripAccents struct{}

func (stripAccents) normalize(n *normalized) {
	if isASCII(n.s) {
		return // no ASCII char is a mark
	}
	n.mapRunes(func(r rune, dst []rune) []rune {
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

func parseStrip(raw json.RawMessage) (normalizer, error) {
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

func (s strip) normalize(n *normalized) {
	a, b := 0, len(n.s)
	if s.left {
		a = len(n.s) - len(strings.TrimLeftFunc(n.s, chars.IsWhitespace))
	}
	if s.right {
		b = max(a, len(strings.TrimRightFunc(n.s, chars.IsWhitespace)))
	}
	if a == 0 && b == len(n.s) {
		return
	}
	n.s, n.align = n.s[a:b], n.align[a:b:b]
}
