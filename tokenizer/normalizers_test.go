package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"qa-shard/qa"
	"qa-shard/tokenizer/internal/normalizers"
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
		_, err := normalizers.Parse(json.RawMessage(c.json))
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
