package tokenizer

import (
	"fmt"
	"slices"
	"testing"

	"qa-shard/tokenizer/internal/stage"
)

// TestPrecompiledXLMR: the nmt_nfkc charsmap of the xlmr fixture
// (Precompiled on the raw text, then WhitespaceSplit and Metaspace) on
// known mappings: full-width forms to ASCII, ligatures, U+3000 and other
// spaces, controls removed, CR LF as one cluster mapped to one space, a
// cluster under 6 bytes whose first char is mapped losing its combining
// mark, an expansion followed by a removal (tokenizers' own test
// "expansion_followed_by_removal"), and removals at the very start, which
// HF's replace leaves unconsumed so that the next chars take their
// alignments. The normalized strings and encodings expected are what npm
// tokenizers@0.23.2 gives (precompiled(bytes).normalizeString and
// Tokenizer.encode on the same tokenizer.json).
func TestPrecompiledXLMR(t *testing.T) {
	tk := familyTokenizer(t, "xlmr")
	norm := tk.pipe.norm
	if kind := fmt.Sprintf("%T", norm); kind != "*normalizers.precompiled" {
		t.Fatalf("xlmr's normalizer is %s, want Precompiled alone", kind)
	}
	for _, c := range []struct {
		text, norm string
		ids, words []int32
		offsets    [][2]int32
	}{
		{"\uff21\uff22\uff23 \uff44\uff45\uff46\uff11\uff12\uff13", "ABC def123", []int32{12, 3, 6311, 917, 239}, []int32{0, 0, 1, 1, 1}, [][2]int32{{0, 1}, {0, 3}, {4, 7}, {7, 9}, {9, 10}}},
		{"\ufb01ne \ufb02ow \ufb00", "fine flow ff", []int32{1122, 3311, 12, 2459}, []int32{0, 1, 2, 2}, [][2]int32{{0, 3}, {4, 7}, {8, 9}, {8, 9}}},
		{"a\u3000b", "a b", []int32{20, 333}, []int32{0, 1}, [][2]int32{{0, 1}, {2, 3}}},
		{"\u2122\u001eg", "TMg", []int32{12, 3, 262}, []int32{0, 0, 0}, [][2]int32{{0, 1}, {0, 2}, {2, 3}}},
		{"\u0001abc", "abc", []int32{5078}, []int32{0}, [][2]int32{{0, 3}}},
		{"x\u0001\u0002y", "xy", []int32{12, 15160}, []int32{0, 0}, [][2]int32{{0, 1}, {0, 4}}},
		{"a\r\nb", "a b", []int32{20, 333}, []int32{0, 1}, [][2]int32{{0, 1}, {3, 4}}},
		{"a\rb\nc\td", "a b c d", []int32{20, 333, 271, 12, 42}, []int32{0, 1, 2, 3, 3}, [][2]int32{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {6, 7}}},
		{"\uff21\u0301b", "Ab", []int32{12, 3, 219}, []int32{0, 0, 0}, [][2]int32{{0, 1}, {0, 1}, {2, 3}}},
		{"e\u0301t\u00e9", "\u00e9t\u00e9", []int32{12, 3, 37, 3}, []int32{0, 0, 0, 0}, [][2]int32{{0, 1}, {0, 1}, {2, 3}, {3, 4}}},
		{"\u2460 \u337f", "1 \u682a\u5f0f\u4f1a\u793e", []int32{136, 12, 3}, []int32{0, 1, 1}, [][2]int32{{0, 1}, {2, 3}, {2, 3}}},
		{"\uff76\uff9e", "\u30ab\u3099", []int32{12, 3}, []int32{0, 0}, [][2]int32{{0, 1}, {0, 2}}},
		{"\u00aa\u0301b", "ab", []int32{5940}, []int32{0}, [][2]int32{{0, 3}}},
		{"\u00bd km\u00b2", "1\u20442 km2", []int32{136, 3, 134, 400, 134}, []int32{0, 0, 0, 1, 1}, [][2]int32{{0, 1}, {0, 1}, {0, 1}, {2, 4}, {4, 5}}},
		{"caf\u00e9\u200b\u200dx", "caf\u00e9  x", []int32{1657, 409, 3, 992}, []int32{0, 0, 0, 1}, [][2]int32{{0, 2}, {2, 3}, {3, 4}, {6, 7}}},
		{"\U0001F44D\U0001F3FD ok", "\U0001F44D\U0001F3FD ok", []int32{12, 3, 5853}, []int32{0, 0, 1}, [][2]int32{{0, 1}, {0, 2}, {3, 5}}},
		{"\u0915\u094d\u0937 \u0928\u093f", "\u0915\u094d\u0937 \u0928\u093f", []int32{12, 3, 12, 3}, []int32{0, 0, 1, 1}, [][2]int32{{0, 1}, {0, 3}, {4, 5}, {4, 6}}},
		{"\u1100\u1161\u11a8", "\u1100\u1161\u11a8", []int32{12, 3}, []int32{0, 0}, [][2]int32{{0, 1}, {0, 3}}},
		{"a\u00a0b\u2003c", "a b c", []int32{20, 333, 271}, []int32{0, 1, 2}, [][2]int32{{0, 1}, {2, 3}, {4, 5}}},
		{"\u2122\u0001", "TM", []int32{12, 3}, []int32{0, 0}, [][2]int32{{0, 1}, {0, 2}}},
		{"\u0001\u2122", "TM", []int32{12, 3}, []int32{0, 0}, [][2]int32{{0, 1}, {0, 1}}},
		{"\ufb01\u0001\u0001x", "fix", []int32{6097}, []int32{0}, [][2]int32{{0, 4}}},
	} {
		n := stage.NewNormalized(c.text, 0)
		norm.Normalize(&n)
		if n.S != c.norm || len(n.Align) != len(n.S) {
			t.Errorf("%q: normalized to %q (%d alignments), want %q", c.text, n.S, len(n.Align), c.norm)
		}
		got := tk.Encode(c.text)
		offs := make([][2]int32, got.Len())
		for i, o := range got.Offsets {
			offs[i] = [2]int32{o.Start, o.End}
		}
		if !slices.Equal(got.IDs, c.ids) || !slices.Equal(got.Words, c.words) || !slices.Equal(offs, c.offsets) {
			t.Errorf("%q: got %v %v %v, want %v %v %v", c.text, got.IDs, got.Words, offs, c.ids, c.words, c.offsets)
		}
	}
}
