// Package onig runs the patterns of tokenizers' Replace normalizer and
// Split pre-tokenizer, which tokenizers compiles with Oniguruma, on Go's
// regexp: a translation that keeps their meaning, and a refusal of what
// Go cannot match the same way.
package onig

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
)

// Regex is a pattern of Replace or Split: tokenizers compiles both with
// Oniguruma (Ruby syntax, UTF-8, Unicode classes), a {"String": s}
// pattern escaped into a literal one. It runs here on Go's regexp after a
// translation that keeps the meaning: both are leftmost-first, and
// onig::Regex::find_iter skips an empty match that touches the previous
// match as Go's FindAll does. What Go cannot do the same way (lookaround,
// backreferences, atomic groups, possessive quantifiers, case folding,
// POSIX brackets, \b, ^...) is refused.
type Regex struct {
	re  *regexp.Regexp
	src string
}

// FindAll is find_iter: the byte ranges of successive matches.
func (r *Regex) FindAll(s string) [][]int {
	return r.re.FindAllStringIndex(s, -1)
}

// ParsePattern reads {"String": s} or {"Regex": r}.
func ParsePattern(raw json.RawMessage, what string) (*Regex, error) {
	var p struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	}
	if err := hfjson.Strict(raw, &p, what+" pattern"); err != nil {
		return nil, err
	}
	switch {
	case p.String != nil && p.Regex == nil:
		return &Regex{re: regexp.MustCompile(regexp.QuoteMeta(*p.String)), src: *p.String}, nil
	case p.Regex != nil && p.String == nil:
		return compileOnig(*p.Regex, what)
	}
	return nil, fmt.Errorf("%s: pattern must be {\"String\": ...} or {\"Regex\": ...}, not %s", what, raw)
}

func compileOnig(src, what string) (*Regex, error) {
	goSrc, err := translateOnig(src)
	if err == nil {
		var re *regexp.Regexp
		if re, err = regexp.Compile(goSrc); err == nil {
			return &Regex{re: re, src: src}, nil
		}
	}
	return nil, fmt.Errorf("%w: %s regex %q: %w (qa-shard runs regexes on Go's regexp and refuses what it cannot reproduce exactly)", hfjson.ErrUnsupported, what, src, err)
}

// Oniguruma's Unicode classes, spelled for Go (whose own \w, \s and \d
// are ASCII only), with the chars of Oniguruma's newer Unicode tables
// (package chars' unicode_tables.go), each as it reads outside and inside a bracket
// class: outside, Latin-1 chars take their class from another table, where
// ¹²³¼½¾ are word chars. \w is Letter, Mark, Decimal_Number and
// Connector_Punctuation; \s is White_Space.
var onigClasses = map[string][2]string{
	"w": {`\p{L}\p{M}\p{Nd}\p{Pc}` + chars.OnigWordExtra, `\p{L}\p{M}\p{Nd}\p{Pc}` + chars.OnigWordInClassExtra},
	"s": {onigSpace, onigSpace},
	"d": {`\p{Nd}` + chars.OnigDigitExtra, `\p{Nd}` + chars.OnigDigitInClassExtra},
	"h": {`0-9A-Fa-f`, `0-9A-Fa-f`},
	// \p{...}: the classes measured on every code point against Oniguruma;
	// other property names are Go's tables as they are, which may miss
	// chars assigned in the latest Unicode version.
	"L":  {`\p{L}` + chars.OnigLetterExtra, `\p{L}` + chars.OnigLetterInClassExtra},
	"N":  {`\p{N}` + chars.OnigNumberExtra, `\p{N}` + chars.OnigNumberInClassExtra},
	"Nd": {`\p{Nd}` + chars.OnigDigitExtra, `\p{Nd}` + chars.OnigDigitInClassExtra},
}

const onigSpace = `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`

// translateOnig rewrites an Oniguruma (Ruby syntax) pattern as a Go one
// with the same matches, or says why it cannot.
func translateOnig(src string) (string, error) {
	var b strings.Builder
	inClass := false
	classStart := false // just after "[" or "[^"
	for i := 0; i < len(src); {
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			return "", fmt.Errorf("invalid UTF-8")
		}
		atStart := classStart
		classStart = false
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("trailing backslash")
			}
			n, err := translateEscape(&b, src[i+1:], inClass)
			if err != nil {
				return "", err
			}
			i += 1 + n
			continue
		case inClass && c == '[':
			return "", fmt.Errorf("nested classes and POSIX brackets are not supported")
		case inClass && c == '&' && strings.HasPrefix(src[i:], "&&"):
			return "", fmt.Errorf("class intersection && is not supported")
		case inClass && c == ']' && !atStart:
			inClass = false
		case inClass:
		case c == '[':
			inClass, classStart = true, true
			b.WriteByte('[')
			i++
			if strings.HasPrefix(src[i:], "^") {
				b.WriteByte('^')
				i++
			}
			continue
		case c == '(' && strings.HasPrefix(src[i:], "(?"):
			rest := src[i+2:]
			if !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "P<") ||
				strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!") {
				return "", fmt.Errorf("group (?%.2s is not supported (lookaround, atomic groups, flags)", rest)
			}
		case c == '^':
			return "", fmt.Errorf("^ (start of line in Oniguruma) is not supported")
		case c == '$':
			b.WriteString(`(?m:$)`)
			i++
			continue
		case c == '*' || c == '+' || c == '?' || c == '}':
			if i+1 < len(src) && src[i+1] == '+' {
				return "", fmt.Errorf("possessive or nested quantifier %q is not supported", src[i:i+2])
			}
		case c == '{' && strings.HasPrefix(src[i:], "{,"):
			b.WriteString("{0,")
			i += 2
			continue
		}
		b.WriteString(src[i : i+size])
		i += size
	}
	if inClass {
		return "", fmt.Errorf("unterminated class")
	}
	return b.String(), nil
}

// translateEscape writes the Go form of the escape at the start of rest
// (after the backslash) and returns how many bytes it took.
func translateEscape(b *strings.Builder, rest string, inClass bool) (int, error) {
	c, size := utf8.DecodeRuneInString(rest)
	// class writes one of onigClasses, negated or not.
	class := func(name string, negated bool) {
		body := onigClasses[name][0]
		switch {
		case inClass:
			body = onigClasses[name][1]
			b.WriteString(body)
		case negated:
			b.WriteString("[^" + body + "]")
		default:
			b.WriteString("[" + body + "]")
		}
	}
	switch c {
	case 'w', 's', 'd', 'h':
		class(string(c), false)
	case 'W', 'S', 'D', 'H':
		if inClass {
			return 0, fmt.Errorf(`\%c inside a class is not supported`, c)
		}
		class(strings.ToLower(string(c)), true)
	case 'p', 'P', 'x':
		// \p{Name}, \x{HHHH}: taken whole, so that a "}" inside is
		// not read as the end of a quantifier (\xHH goes on as literal
		// hex digits).
		n, arg := 1, ""
		if strings.HasPrefix(rest[1:], "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return 0, fmt.Errorf(`unterminated \%c{`, c)
			}
			n, arg = end+1, rest[2:end]
		} else if c != 'x' {
			// Oniguruma's Ruby syntax has no \pL: it matches something else.
			return 0, fmt.Errorf(`\%c without braces is not supported`, c)
		}
		// \p{^L} is \P{L}.
		name, negated := strings.CutPrefix(arg, "^")
		negated = negated != (c == 'P')
		if _, ok := onigClasses[name]; ok && c != 'x' && name[0] >= 'A' && name[0] <= 'Z' {
			if negated && inClass {
				return 0, fmt.Errorf(`a negated \p{%s} inside a class is not supported`, name)
			}
			class(name, negated)
			return n, nil
		}
		b.WriteString(`\` + rest[:n])
		return n, nil
	case 't', 'n', 'r', 'f', 'v', 'a':
		b.WriteString(`\` + string(c))
	case 'A', 'z':
		if inClass {
			return 0, fmt.Errorf(`\%c inside a class`, c)
		}
		b.WriteString(`\` + string(c))
	case 'e':
		b.WriteString(`\x1B`)
	case 'u':
		if len(rest) < 5 {
			return 0, fmt.Errorf(`short \u escape`)
		}
		b.WriteString(`\x{` + rest[1:5] + `}`)
		return 5, nil
	default:
		if c < utf8.RuneSelf && (c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return 0, fmt.Errorf(`escape \%c (word boundary, backreference, octal or other Oniguruma escape) is not supported`, c)
		}
		// Any other char escaped is itself, in both syntaxes.
		b.WriteString(regexp.QuoteMeta(string(c)))
	}
	return size, nil
}
