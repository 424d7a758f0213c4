package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"qa-shard/qa"
)

// wordPieceAround is a tokenizer.json with the given normalizer and
// pre-tokenizer (JSON, "null" for none) around a WordPiece model over vocab.
func wordPieceAround(t testing.TB, norm, pre string, vocab []string) *Tokenizer {
	t.Helper()
	v := map[string]int{}
	for i, tok := range vocab {
		v[tok] = i
	}
	vj, _ := json.Marshal(v)
	raw := fmt.Sprintf(`{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
		"normalizer":%s,"pre_tokenizer":%s,"post_processor":null,"decoder":null,
		"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":%s}}`,
		norm, pre, vj)
	tk, err := parse([]byte(raw))
	if err != nil {
		t.Fatalf("normalizer %s, pre_tokenizer %s: %v", norm, pre, err)
	}
	return tk
}

// TestNormalizerGolden replays testdata/normalizers.golden.json, written by
// Hugging Face tokenizers 0.23.2 (testdata/normgolden.mjs): ids, offsets and
// word ids of edge cases and random texts under every normalizer and
// splitting pre-tokenizer option. QA_SHARD_NORM_GOLDEN names a larger run
// of the script to read instead.
func TestNormalizerGolden(t *testing.T) {
	path := "testdata/normalizers.golden.json"
	if p := os.Getenv("QA_SHARD_NORM_GOLDEN"); p != "" {
		path = p
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Vocab   []string
		Configs []struct {
			Name         string
			Normalizer   json.RawMessage
			PreTokenizer json.RawMessage `json:"pre_tokenizer"`
			Cases        []struct {
				Text    string
				IDs     []int32
				Offsets [][2]int32
				Words   []int32
			}
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Configs) < 40 {
		t.Fatalf("%d configurations in the golden file", len(g.Configs))
	}
	for _, c := range g.Configs {
		norm, pre := "null", "null"
		if c.Normalizer != nil {
			norm = string(c.Normalizer)
		}
		if c.PreTokenizer != nil {
			pre = string(c.PreTokenizer)
		}
		tk := wordPieceAround(t, norm, pre, g.Vocab)
		bad := 0
		for _, k := range c.Cases {
			got := tk.Encode(k.Text)
			want := qa.Tokens{IDs: k.IDs, Words: k.Words}
			for _, o := range k.Offsets {
				want.Offsets = append(want.Offsets, qa.Span{Start: o[0], End: o[1]})
			}
			if fmt.Sprint(got.IDs, got.Offsets, got.Words) != fmt.Sprint(want.IDs, want.Offsets, want.Words) {
				bad++
				if bad <= 3 {
					t.Errorf("%s %q:\n got ids %v offsets %v words %v\nwant ids %v offsets %v words %v",
						c.Name, k.Text, got.IDs, got.Offsets, got.Words, want.IDs, want.Offsets, want.Words)
				}
			}
		}
	}
}

// TestNormalizerOptions checks what each normalizer accepts and refuses,
// as tokenizers' deserializers do (and where qa-shard refuses more).
func TestNormalizerOptions(t *testing.T) {
	for _, c := range []struct {
		json string
		err  string // "" accepted; "unsupported" ErrUnsupported; else part of the error
	}{
		{`{"type":"NFC"}`, ""},
		{`{"type":"NFKD","x":1}`, "unsupported"},
		{`{"type":"Lowercase"}`, ""},
		{`{"type":"StripAccents"}`, ""},
		{`{"type":"Strip","strip_left":true,"strip_right":false}`, ""},
		{`{"type":"Strip","strip_left":true}`, "required"},
		{`{"type":"Prepend","prepend":"▁"}`, ""},
		{`{"type":"Prepend"}`, "required"},
		{`{"type":"Replace","pattern":{"String":"a"},"content":"b"}`, ""},
		{`{"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "}`, ""},
		{`{"type":"Replace","pattern":{"String":"a"}}`, "required"},
		{`{"type":"Replace","pattern":{"Other":"a"},"content":"b"}`, "unsupported"},
		{`{"type":"Replace","pattern":{"Regex":"a(?=b)"},"content":"b"}`, "unsupported"},
		{`{"type":"Replace","pattern":"a","content":"b"}`, "Replace"},
		{`{"type":"Nmt"}`, "unsupported"},
	} {
		_, err := parseNormalizer(json.RawMessage(c.json))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.json, err)
		case c.err == "unsupported" && !errors.Is(err, ErrUnsupported):
			t.Errorf("%s: %v, want ErrUnsupported", c.json, err)
		case c.err != "" && c.err != "unsupported" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want an error with %q", c.json, err, c.err)
		}
	}
}

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
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.src)) {
				t.Errorf("%s: %v, want a refusal naming the pattern", c.src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		var got []string
		for _, m := range re.findAll(c.text) {
			got = append(got, c.text[m[0]:m[1]])
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s on %q: %q, want %q", c.src, c.text, strings.Join(got, "|"), c.want)
		}
	}
}
