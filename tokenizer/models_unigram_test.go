package tokenizer

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// uniTinyJSON are small tokenizer.json parts (the rest null) for the
// Unigram model and the Metaspace pre-tokenizer.
var uniTinyJSON = map[string]string{
	"hf-doc":                  `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", 0], ["b", 0], ["c", 0], ["d", 0], ["cd", 1], ["ab", 2], ["abc", 5], ["abcd", 10]]}}`,
	"tie":                     `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", -1], ["a", -1], ["b", -1], ["ab", -2], ["bc", -2], ["c", -1], ["abc", -3]]}}`,
	"tie-float":               `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", -0.1], ["b", -0.2], ["ab", -0.30000000000000004], ["c", -0.3], ["bc", -0.5]]}}`,
	"fallback":                `{"model": {"type": "Unigram", "unk_id": 0, "byte_fallback": true, "vocab": [["<unk>", 0], ["a", -1], ["<0xE2>", -5], ["<0x98>", -5], ["<0x83>", -5], ["<0x78>", -5]]}}`,
	"meta-always":             `{"added_tokens": [{"id": 0, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}], "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<s>", 0], ["<unk>", -20], ["▁", -2], ["a", -1], ["b", -1], ["▁a", -1.5], ["▁b", -1.5]]}}`,
	"meta-first":              `{"added_tokens": [{"id": 0, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}], "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<s>", 0], ["<unk>", -20], ["▁", -2], ["a", -1], ["b", -1], ["▁a", -1.5], ["▁b", -1.5]]}}`,
	"meta-never-nosplit":      `{"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": false}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<s>", 0], ["<unk>", -20], ["▁", -2], ["a", -1], ["b", -1], ["▁a", -1.5], ["▁b", -1.5]]}}`,
	"meta-legacy":             `{"pre_tokenizer": {"type": "Metaspace", "replacement": "_", "add_prefix_space": true, "str_rep": "_"}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<s>", 0], ["<unk>", -20], ["_", -2], ["a", -1], ["b", -1], ["_a", -1.5], ["_b", -1.5]]}}`,
	"meta-legacy-false":       `{"pre_tokenizer": {"type": "Metaspace", "replacement": "_", "add_prefix_space": false}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<unk>", -20]]}}`,
	"meta-legacy-false-never": `{"pre_tokenizer": {"type": "Metaspace", "replacement": "_", "add_prefix_space": false, "prepend_scheme": "never"}, "model": {"type": "Unigram", "unk_id": 1, "vocab": [["<s>", 0], ["<unk>", -20], ["_", -2], ["a", -1], ["b", -1], ["_a", -1.5], ["_b", -1.5]]}}`,
}

// uniTokenizer parses one of uniTinyJSON.
func uniTokenizer(t *testing.T, part string) (*Tokenizer, error) {
	t.Helper()
	full := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": []any{},
		"normalizer": nil, "pre_tokenizer": nil, "post_processor": nil, "decoder": nil,
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(part), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		full[k] = v
	}
	raw, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	return parse(raw)
}

// TestUnigramMetaspace: Viterbi ties (the piece found first, i.e. the path
// whose last piece starts earliest, keeps a tie, also one that is a tie
// only in floating point), unknown chars fused, byte_fallback (every byte
// token gets the whole unknown piece's offsets; a byte without a token
// makes the piece unk), and Metaspace's prepend schemes, split false and
// the legacy add_prefix_space. The expected encodings are what npm
// tokenizers@0.23.2 gives for the same tokenizer.json and text.
func TestUnigramMetaspace(t *testing.T) {
	for _, c := range []struct {
		tok, text  string
		ids, words []int32
		offsets    [][2]int32
	}{
		{"hf-doc", "abcdacdxx", []int32{8, 1, 5, 0}, []int32{0, 0, 0, 0}, [][2]int32{{0, 4}, {4, 5}, {5, 7}, {7, 9}}},
		{"hf-doc", "xaxbx", []int32{0, 1, 0, 2, 0}, []int32{0, 0, 0, 0, 0}, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}},
		{"hf-doc", "a☃☃b", []int32{1, 0, 2}, []int32{0, 0, 0}, [][2]int32{{0, 1}, {1, 3}, {3, 4}}},
		{"tie", "ab", []int32{3}, []int32{0}, [][2]int32{{0, 2}}},
		{"tie", "abc", []int32{6}, []int32{0}, [][2]int32{{0, 3}}},
		{"tie", "bc", []int32{4}, []int32{0}, [][2]int32{{0, 2}}},
		{"tie", "cab", []int32{5, 3}, []int32{0, 0}, [][2]int32{{0, 1}, {1, 3}}},
		{"tie", "abab", []int32{3, 3}, []int32{0, 0}, [][2]int32{{0, 2}, {2, 4}}},
		{"tie-float", "ab", []int32{3}, []int32{0}, [][2]int32{{0, 2}}},
		{"tie-float", "abc", []int32{1, 5}, []int32{0, 0}, [][2]int32{{0, 1}, {1, 3}}},
		{"tie-float", "bc", []int32{5}, []int32{0}, [][2]int32{{0, 2}}},
		{"fallback", "a☃a", []int32{1, 2, 3, 4, 1}, []int32{0, 0, 0, 0, 0}, [][2]int32{{0, 1}, {1, 2}, {1, 2}, {1, 2}, {2, 3}}},
		{"fallback", "☃x", []int32{2, 3, 4, 5}, []int32{0, 0, 0, 0}, [][2]int32{{0, 2}, {0, 2}, {0, 2}, {0, 2}}},
		{"fallback", "aéa", []int32{1, 0, 1}, []int32{0, 0, 0}, [][2]int32{{0, 1}, {1, 2}, {2, 3}}},
		{"fallback", "x☃", []int32{5, 2, 3, 4}, []int32{0, 0, 0, 0}, [][2]int32{{0, 2}, {0, 2}, {0, 2}, {0, 2}}},
		{"meta-always", "a b", []int32{5, 6}, []int32{0, 1}, [][2]int32{{0, 1}, {1, 3}}},
		{"meta-always", "  a  b ", []int32{2, 5, 2, 6, 2}, []int32{0, 1, 2, 3, 4}, [][2]int32{{0, 1}, {1, 3}, {3, 4}, {4, 6}, {6, 7}}},
		{"meta-always", "a<s>b", []int32{5, 0, 6}, []int32{0, 1, 2}, [][2]int32{{0, 1}, {1, 4}, {4, 5}}},
		{"meta-always", " <s> a", []int32{2, 0, 5}, []int32{0, 1, 2}, [][2]int32{{0, 1}, {1, 4}, {4, 6}}},
		{"meta-always", "▁a", []int32{5}, []int32{0}, [][2]int32{{0, 2}}},
		{"meta-first", "a b", []int32{5, 6}, []int32{0, 1}, [][2]int32{{0, 1}, {1, 3}}},
		{"meta-first", "  a  b ", []int32{2, 5, 2, 6, 2}, []int32{0, 1, 2, 3, 4}, [][2]int32{{0, 1}, {1, 3}, {3, 4}, {4, 6}, {6, 7}}},
		{"meta-first", "a<s>b", []int32{5, 0, 4}, []int32{0, 1, 2}, [][2]int32{{0, 1}, {1, 4}, {4, 5}}},
		{"meta-first", "<s>a b", []int32{0, 3, 6}, []int32{0, 1, 2}, [][2]int32{{0, 3}, {3, 4}, {4, 6}}},
		{"meta-first", " <s> a", []int32{2, 0, 5}, []int32{0, 1, 2}, [][2]int32{{0, 1}, {1, 4}, {4, 6}}},
		{"meta-never-nosplit", "a b", []int32{3, 6}, []int32{0, 0}, [][2]int32{{0, 1}, {1, 3}}},
		{"meta-never-nosplit", "  a  b ", []int32{2, 5, 2, 6, 2}, []int32{0, 0, 0, 0, 0}, [][2]int32{{0, 1}, {1, 3}, {3, 4}, {4, 6}, {6, 7}}},
		{"meta-legacy", "a b", []int32{5, 6}, []int32{0, 1}, [][2]int32{{0, 1}, {1, 3}}},
		{"meta-legacy-false-never", "a b", []int32{3, 6}, []int32{0, 1}, [][2]int32{{0, 1}, {1, 3}}},
	} {
		tk, err := uniTokenizer(t, uniTinyJSON[c.tok])
		if err != nil {
			t.Fatalf("%s: %v", c.tok, err)
		}
		got := tk.Encode(c.text)
		offs := make([][2]int32, got.Len())
		for i, o := range got.Offsets {
			offs[i] = [2]int32{o.Start, o.End}
		}
		if !slices.Equal(got.IDs, c.ids) || !slices.Equal(got.Words, c.words) || !slices.Equal(offs, c.offsets) {
			t.Errorf("%s %q: got %v %v %v, want %v %v %v", c.tok, c.text, got.IDs, got.Words, offs, c.ids, c.words, c.offsets)
		}
	}
	// tokenizers refuses add_prefix_space false unless prepend_scheme is
	// "never" ("add_prefix_space does not match declared prepend_scheme").
	if _, err := uniTokenizer(t, uniTinyJSON["meta-legacy-false"]); err == nil {
		t.Error("add_prefix_space false with the default prepend_scheme was accepted")
	}
	// Without unk_id HF fails on any unknown char: refused.
	if _, err := uniTokenizer(t, `{"model": {"type": "Unigram", "unk_id": null, "vocab": [["a", 0]]}}`); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Unigram without unk_id: %v", err)
	}
}
