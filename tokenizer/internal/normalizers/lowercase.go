package normalizers

import (
	"strings"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// Lowercase is Lowercase: Rust's char::to_lowercase on every char, the
// chars after the first of a multi-char Lowercase inserted after it
// (NormalizedString::Lowercase).
type Lowercase struct{}

func (Lowercase) Normalize(n *stage.Normalized) {
	if isASCII(n.S) {
		// Byte for byte: every alignment stays where it is.
		n.S = strings.ToLower(n.S)
		return
	}
	// mapRunes with the ASCII case inline, the hot path of real text.
	s := n.S
	out := make([]byte, 0, len(s)+8)
	align := make([]tokens.Span, 0, len(s)+8)
	var buf [4]rune
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			align = append(align, n.Align[i])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		a := n.Align[i]
		for _, c := range chars.ToLowerFull(r, buf[:0]) {
			k := len(out)
			out = utf8.AppendRune(out, c)
			for range len(out) - k {
				align = append(align, a)
			}
		}
		i += size
	}
	n.S, n.Align = string(out), align
}
