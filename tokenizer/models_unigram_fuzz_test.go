package tokenizer

import (
	"testing"
	"unicode/utf8"
)

// FuzzEncodeSentencePiece: the SentencePiece families never panic, on
// invalid UTF-8 either, and every token's offsets lie inside the text.
func FuzzEncodeSentencePiece(f *testing.F) {
	var tks []*Tokenizer
	for _, fam := range []string{"xlmr", "albert", "deberta"} {
		tks = append(tks, familyTokenizer(f, fam))
	}
	for _, s := range []string{"", " ", "\x01abc", "™\x1eg", "a\r\nb", "Ａ\u0301b", "ﬁ\x01\x01x", "\xff\xfe", "a\xe2\x96", "\u2581\u2581 x", "<s>a</s>", "👍🏽 \u0915\u094d\u0937"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := int32(utf8.RuneCountInString(text))
		for _, tk := range tks {
			e := tk.Encode(text)
			if len(e.IDs) != len(e.Offsets) || len(e.IDs) != len(e.Words) {
				t.Fatalf("%q: %d ids, %d offsets, %d words", text, len(e.IDs), len(e.Offsets), len(e.Words))
			}
			for _, o := range e.Offsets {
				if o.Start < 0 || o.Start > o.End || o.End > n {
					t.Fatalf("%q: offsets %v outside %d chars", text, o, n)
				}
			}
		}
	})
}
