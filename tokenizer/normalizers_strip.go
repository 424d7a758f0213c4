package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"qa-shard/qa"
)

// parseSimpleNormalizer reads the normalizers that take one option or
// none: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace and
// Prepend, each with exactly the fields tokenizers serializes.
func parseSimpleNormalizer(typ string, raw json.RawMessage) (normalizer, error) {
	switch typ {
	case "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents":
		if err := strict(raw, &struct {
			Type string `json:"type"`
		}{}, typ+" normalizer"); err != nil {
			return nil, err
		}
		switch typ {
		case "NFC":
			return unicodeForm{compose: true}, nil
		case "NFD":
			return unicodeForm{}, nil
		case "NFKC":
			return unicodeForm{compat: true, compose: true}, nil
		case "NFKD":
			return unicodeForm{compat: true}, nil
		case "Lowercase":
			return lowercase{}, nil
		}
		return stripAccents{}, nil
	case "Strip":
		// Both fields are required by tokenizers' deserializer.
		var c struct {
			Type  string `json:"type"`
			Left  *bool  `json:"strip_left"`
			Right *bool  `json:"strip_right"`
		}
		if err := strict(raw, &c, "Strip normalizer"); err != nil {
			return nil, err
		}
		if c.Left == nil || c.Right == nil {
			return nil, fmt.Errorf("Strip normalizer: strip_left and strip_right are both required")
		}
		return strip{left: *c.Left, right: *c.Right}, nil
	case "Prepend":
		var c struct {
			Type    string  `json:"type"`
			Prepend *string `json:"prepend"`
		}
		if err := strict(raw, &c, "Prepend normalizer"); err != nil {
			return nil, err
		}
		if c.Prepend == nil {
			return nil, fmt.Errorf("Prepend normalizer: prepend is required")
		}
		return prepend{s: *c.Prepend}, nil
	case "Replace":
		return parseReplace(raw)
	}
	return nil, unsupported("normalizer", typ, supportedNormalizer)
}

// lowercase is Lowercase: Rust's char::to_lowercase on every char, the
// chars after the first of a multi-char lowercase inserted after it
// (NormalizedString::lowercase).
type lowercase struct{}

func (lowercase) normalize(n *normalized) {
	if isASCII(n.s) {
		// Byte for byte: every alignment stays where it is.
		n.s = strings.ToLower(n.s)
		return
	}
	// mapRunes with the ASCII case inline, the hot path of real text.
	s := n.s
	out := make([]byte, 0, len(s)+8)
	align := make([]qa.Span, 0, len(s)+8)
	var buf [4]rune
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			align = append(align, n.align[i])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		a := n.align[i]
		for _, c := range toLowerFull(r, buf[:0]) {
			k := len(out)
			out = utf8.AppendRune(out, c)
			for range len(out) - k {
				align = append(align, a)
			}
		}
		i += size
	}
	n.s, n.align = string(out), align
}

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
	if m, ok := hfMark[r]; ok {
		return m
	}
	return unicode.Is(unicode.M, r)
}

// strip is Strip: leading and/or trailing chars with Rust's
// char::is_whitespace removed; the rest keep their alignments.
type strip struct{ left, right bool }

func (s strip) normalize(n *normalized) {
	a, b := 0, len(n.s)
	if s.left {
		a = len(n.s) - len(strings.TrimLeftFunc(n.s, isWhitespace))
	}
	if s.right {
		b = max(a, len(strings.TrimRightFunc(n.s, isWhitespace)))
	}
	if a == 0 && b == len(n.s) {
		return
	}
	n.s, n.align = n.s[a:b], n.align[a:b:b]
}

// prepend is Prepend: on a non-empty string, the text goes before the
// first char, every char of it aligned to that first char
// (NormalizedString::prepend).
type prepend struct{ s string }

func (p prepend) normalize(n *normalized) {
	if n.s == "" || p.s == "" {
		return
	}
	align := make([]qa.Span, 0, len(p.s)+len(n.align))
	for range len(p.s) {
		align = append(align, n.align[0])
	}
	n.s, n.align = p.s+n.s, append(align, n.align...)
}

// replace is Replace: every match of the pattern (an Oniguruma regex in
// HF; a literal string is escaped into one) becomes content. The chars of
// content are all aligned to the last byte of the match, or, for an empty
// match, to the char before it (NormalizedString::replace inserts them as
// transform_range insertions after the removed match); an empty match at
// the start aligns to the empty span where the piece begins.
type replace struct {
	re      *hfRegex
	content string
}

func parseReplace(raw json.RawMessage) (normalizer, error) {
	var c struct {
		Type    string          `json:"type"`
		Pattern json.RawMessage `json:"pattern"`
		Content *string         `json:"content"`
	}
	if err := strict(raw, &c, "Replace normalizer"); err != nil {
		return nil, err
	}
	if c.Content == nil {
		return nil, fmt.Errorf("Replace normalizer: content is required")
	}
	re, err := parsePattern(c.Pattern, "Replace normalizer")
	if err != nil {
		return nil, err
	}
	return replace{re: re, content: *c.Content}, nil
}

func (r replace) normalize(n *normalized) {
	if n.s == "" {
		// Pattern::find_matches on an empty string reports no match.
		return
	}
	matches := r.re.findAll(n.s)
	if len(matches) == 0 {
		return
	}
	var out strings.Builder
	align := make([]qa.Span, 0, len(n.align))
	last := 0
	for _, m := range matches {
		out.WriteString(n.s[last:m[0]])
		align = append(align, n.align[last:m[0]]...)
		a := qa.Span{Start: n.base, End: n.base}
		if m[1] > 0 {
			a = n.align[m[1]-1]
		}
		out.WriteString(r.content)
		for range len(r.content) {
			align = append(align, a)
		}
		last = m[1]
	}
	out.WriteString(n.s[last:])
	align = append(align, n.align[last:]...)
	n.s, n.align = out.String(), align
}

// isASCII says whether s is all ASCII, where the per-char normalizers are
// byte for byte.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
