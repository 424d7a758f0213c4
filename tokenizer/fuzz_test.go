package tokenizer

import (
	"testing"
	"unicode/utf8"
)

// FuzzEncode checks the invariants the window cutting relies on, for any
// input including invalid UTF-8: no panic, one offset and one word per id,
// offsets inside the text in code points, starts and words non-decreasing,
// ids inside the vocabulary.
func FuzzEncode(f *testing.F) {
	tk := bertTokenizer(f)
	for _, s := range []string{
		"", "Hello, world!", "Café naïve İstanbul ΟΔΟΣ ß ﬁ", "北京\U00020000 🥰👩‍👩‍👧", "[CLS] x [SEP][cls]",
		"a\u00a0b\u2028c\u3000d\x00e\u200bf\ufeffg", "\xff\xfe\xe2\x82 bad", "Ⱥ", "\t\r\n", "한국어",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := tk.Encode(text)
		n := got.Len()
		if len(got.Offsets) != n || len(got.Words) != n {
			t.Fatalf("%d ids, %d offsets, %d words", n, len(got.Offsets), len(got.Words))
		}
		chars := int32(utf8.RuneCountInString(text))
		vocab := int32(tk.VocabSize())
		for i := range n {
			o := got.Offsets[i]
			if o.Start < 0 || o.Start > o.End || o.End > chars {
				t.Fatalf("token %d: offset %v outside [0,%d]", i, o, chars)
			}
			if id := got.IDs[i]; id < 0 || id >= vocab {
				t.Fatalf("token %d: id %d outside the vocabulary", i, id)
			}
			if got.Words[i] < 0 {
				t.Fatalf("token %d: word %d", i, got.Words[i])
			}
			if i > 0 && (o.Start < got.Offsets[i-1].Start || got.Words[i] < got.Words[i-1]) {
				t.Fatalf("token %d: offset %v word %d after %v word %d", i, o, got.Words[i], got.Offsets[i-1], got.Words[i-1])
			}
		}
	})
}
