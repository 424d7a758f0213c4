package onig

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/hfjson"
)

// TestOnigTranslation checks the Oniguruma patterns qa-shard runs on Go's
// regexp, with the matches Hugging Face tokenizers 0.23.2 finds (an
// inverted Split with Removed in npm tokenizers), and those it refuses.
func TestOnigTranslation(t *testing.T) {
	for _, c := range []struct {
		src, text, want string // want: the matches joined by "|"; "refused"
	}{
		{`\s+`, "a \u3000b\u00a0c", " \u3000|\u00a0"},
		{`\w+`, "été_1 x²", "été_1|x²"},
		{`\d+`, "a١٢3", "١٢3"},
		{`\p{L}+|\p{N}+`, "ab12 cd", "ab|12|cd"},
		{`[\p{L}\d]+`, "ab12-x", "ab12|x"},
		{`\pL+`, "", "refused"},
		{`\P{L}+|\p{^N}+`, "ab1-2c", "ab|1-2|c"},
		{`[^\s\w]+`, "a.,b !", ".,|!"},
		{` {2,}`, "a  b   c d", "  |   "},
		{`x{,2}`, "xxx", "xx|x"},
		{`\x41\x{42}\u0043`, "ABC", "ABC"},
		{`\h+`, "fx0A9g", "f|0A9"},
		{`a$`, "a\na", "a|a"},
		{`\.`, "a.b", "."},
		{`(?:ab)+`, "abab", "abab"},
		{`a(?=b)`, "", "refused"},
		{`a(?!b)`, "", "refused"},
		{`(?<=a)b`, "", "refused"},
		{`(?>a)`, "", "refused"},
		{`(?i)a`, "", "refused"},
		{`(a)\1`, "", "refused"},
		{`a++`, "", "refused"},
		{`\bword\b`, "", "refused"},
		{`^a`, "", "refused"},
		{`[[:alpha:]]`, "", "refused"},
		{`[a-z&&[^aeiou]]`, "", "refused"},
		{`[\W]`, "", "refused"},
		{`\p{Alpha}`, "", "refused"},
	} {
		re, err := compileOnig(c.src, "test")
		if c.want == "refused" {
			if !errors.Is(err, hfjson.ErrUnsupported) || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.src)) {
				t.Errorf("%s: %v, want a refusal naming the pattern", c.src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		var got []string
		for _, m := range re.FindAll(c.text) {
			got = append(got, c.text[m[0]:m[1]])
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s on %q: %q, want %q", c.src, c.text, strings.Join(got, "|"), c.want)
		}
	}
}
