package tokenizer

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// parseSplitter reads the pre-tokenizers that only cut: WhitespaceSplit,
// Whitespace, Punctuation, Digits and Split, each with exactly the fields
// tokenizers serializes.
func parseSplitter(typ string, raw json.RawMessage) (preTokenizer, error) {
	what := typ + " pre_tokenizer"
	switch typ {
	case "WhitespaceSplit", "Whitespace":
		if err := strict(raw, &struct {
			Type string `json:"type"`
		}{}, what); err != nil {
			return nil, err
		}
		if typ == "Whitespace" {
			return whitespaceWords{}, nil
		}
		return whitespaceSplit{}, nil
	case "Punctuation":
		var c struct {
			Type     string  `json:"type"`
			Behavior *string `json:"behavior"`
		}
		if err := strict(raw, &c, what); err != nil {
			return nil, err
		}
		p := punctuation{b: isolated} // serde default
		if c.Behavior != nil {
			b, err := parseBehavior(*c.Behavior)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			p.b = b
		}
		return p, nil
	case "Digits":
		var c struct {
			Type       string `json:"type"`
			Individual *bool  `json:"individual_digits"`
		}
		if err := strict(raw, &c, what); err != nil {
			return nil, err
		}
		if c.Individual == nil {
			// tokenizers' deserializer requires it too.
			return nil, fmt.Errorf("%s: individual_digits is required", what)
		}
		return digits{individual: *c.Individual}, nil
	case "Split":
		// Split's deserializer requires all three fields.
		var c struct {
			Type     string          `json:"type"`
			Pattern  json.RawMessage `json:"pattern"`
			Behavior *string         `json:"behavior"`
			Invert   *bool           `json:"invert"`
		}
		if err := strict(raw, &c, what); err != nil {
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
	return nil, unsupported("pre_tokenizer", typ, supportedPreTok)
}

// whitespaceSplit is WhitespaceSplit: split on Rust's char::is_whitespace,
// the whitespace removed.
type whitespaceSplit struct{}

func (whitespaceSplit) split(n normalized, dst []normalized) []normalized {
	return splitChars(n, isWhitespace, removed, dst)
}

// whitespaceWords is Whitespace: the matches of \w+|[^\w\s]+ (Rust's regex
// crate, Unicode classes) are kept and the rest removed (a split on the
// inverted pattern with Removed).
type whitespaceWords struct{}

func (whitespaceWords) split(n normalized, dst []normalized) []normalized {
	s := n.s
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWhitespace(r) && !isRustWord(r) {
			i += size
			continue
		}
		// A word run, or a run of what is neither word nor space.
		word := isRustWord(r)
		j := i + size
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if isRustWord(r) != word || !word && isWhitespace(r) {
				break
			}
			j += size
		}
		dst = append(dst, n.slice(i, j))
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
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control, hfRustWordExtra)
}

// punctuation is Punctuation: every char that is ASCII punctuation or
// Unicode P* (is_punc, the same class as BERT's) is a delimiter.
type punctuation struct{ b behavior }

func (p punctuation) split(n normalized, dst []normalized) []normalized {
	return splitChars(n, isBertPunc, p.b, dst)
}

// digits is Digits: chars that are Rust's char::is_numeric (Nd, Nl, No)
// each isolated, or in runs (Contiguous).
type digits struct{ individual bool }

func (d digits) split(n normalized, dst []normalized) []normalized {
	b := contiguous
	if d.individual {
		b = isolated
	}
	return splitChars(n, isRustNumeric, b, dst)
}

// isRustNumeric is char::is_numeric.
func isRustNumeric(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r) || unicode.Is(hfRustNumericExtra, r)
}

// split is Split: the pattern's matches (or, inverted, what lies between
// them) are the delimiters, treated as the behavior says.
type split struct {
	re     *hfRegex
	b      behavior
	invert bool
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
