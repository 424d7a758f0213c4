package pretokenizers

import (
	"unicode"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/stage"
)

// whitespaceSplit is WhitespaceSplit: split on Rust's char::is_whitespace,
// the whitespace removed.
type whitespaceSplit struct{}

func (whitespaceSplit) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	return stage.SplitChars(n, chars.IsWhitespace, stage.Removed, dst)
}

// whitespaceWords is Whitespace: the matches of \w+|[^\w\s]+ (Rust's regex
// crate, Unicode classes) are kept and the rest removed (a split on the
// inverted pattern with Removed).
type whitespaceWords struct{}

func (whitespaceWords) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	s := n.S
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if chars.IsWhitespace(r) && !isRustWord(r) {
			i += size
			continue
		}
		// A word run, or a run of what is neither word nor space.
		word := isRustWord(r)
		j := i + size
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if isRustWord(r) != word || !word && chars.IsWhitespace(r) {
				break
			}
			j += size
		}
		dst = append(dst, n.Slice(i, j))
		i = j
	}
	return dst
}

// isRustWord is \w in Rust's regex crate: Alphabetic, Mark,
// Decimal_Number, Connector_Punctuation and Join_Control.
func isRustWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control, chars.RustWordExtra)
}
