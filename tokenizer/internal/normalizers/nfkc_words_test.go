package normalizers

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"qa-shard/tokenizer/internal/stage"
)

// nfkcWholeText is nfkcWords as it was before it rebuilt only the
// stretches that change: unicodeForm over the whole text, unless the text
// is in NFKC already.
func nfkcWholeText(n *stage.Normalized) {
	if norm.NFKC.IsNormalString(n.S) {
		return
	}
	UnicodeForm{Compat: true, Compose: true, Whole: true}.Normalize(n)
}

// nfkcAlphabet are chars where NFKC's decomposition, reordering and
// composition meet: combining marks of every kind of class, kana and
// their voiced marks full and half width, Hangul syllables and jamo,
// chars composed across a mark of another class, multi-part compositions,
// composition exclusions, compatibility ideographs, chars whose tables
// differ between golang.org/x/text and the crate (unicode_tables.go),
// invalid bytes.
var nfkcAlphabet = []string{
	"a", "e", " ", "A", "o", "u", "\u0301", "\u0323", "\u031b", "\u0308", "\u0344", "\u0340", "\u0345", "\u030a", "\u05b4", "\u0f71", "\u0f72", "\u0f73", "\u0f80",
	"か", "が", "は", "ぱ", "\u3099", "\u309a", "\u309b", "\u309c", "ｶ", "ﾞ", "ﾟ", "ﾊ", "ｳ", "ヴ", "ゝ", "ゞ", "ー",
	"（", "）", "Ａ", "１", "①", "ﬁ", "㋿", "㍻", "\u3000", "\u00a0", "\u2126", "\u212b", "Å", "ḋ", "ṩ", "α", "ἀ", "\u0387",
	"가", "각", "\u1100", "\u1161", "\u11a8", "\u11c2",
	"\u0cc6", "\u0cc2", "\u0cd5", "\u0b47", "\u0b3e", "\u0b57", "\u1b05", "\u1b35", "\u0dd9", "\u0dcf", "\u0dca",
	"\U0001d15e", "\u2adc", "\u0958", "\uf900", "\U0002f800", "\U0001f100", "\U00020000", "\ufffd",
	"\u07fd", "\u0898", "\u0c3c", "\ua7f2", "\U00010781", "\U0001fbf1", "\U00011938",
	"日", "本", "語", "\xff", "\xe3\x81",
}

// checkNFKCWords compares nfkcWords with nfkcWholeText on text, and with
// b lent to it (as an encode lends them, holding whatever the texts before
// left there) when b is not nil.
func checkNFKCWords(t *testing.T, text string, cp int32, b *stage.Buffers) {
	t.Helper()
	want := stage.NewNormalized(text, cp)
	nfkcWholeText(&want)
	for _, lend := range []bool{false, true} {
		if lend && b == nil {
			continue
		}
		got := stage.NewNormalized(text, cp)
		if lend {
			NFKCWords{}.NormalizeBuffered(&got, b)
		} else {
			NFKCWords{}.Normalize(&got)
		}
		if got.S != want.S || got.Base != want.Base || !slices.Equal(got.Align, want.Align) {
			t.Fatalf("NFKC of %+q (buffers lent: %v):\n got %+q %v base %d\nwant %+q %v base %d", text, lend, got.S, got.Align, got.Base, want.S, want.Align, want.Base)
		}
	}
}

// TestNFKCWordsStretches: rebuilding only the stretches that change gives
// the text and alignments of unicodeForm over the whole text, on random
// texts of the chars where NFKC is hardest and on a Japanese sentence
// with them inside.
func TestNFKCWordsStretches(t *testing.T) {
	for _, s := range []string{
		"ｶﾞｲﾄﾞﾌﾞｯｸ", "か\u3099", "\u3099か", "（café）", "e\u0301\u0323", "\u0301", "a\xffb", "가\u11a8", "\u1100\u1161\u11a8",
		"控えめな博物館は初期のエンジンを再建した（café）。地元の川は新しい設計を改善した（ｶﾞｲﾄﾞﾌﾞｯｸ）。",
	} {
		checkNFKCWords(t, s, 0, nil)
		checkNFKCWords(t, s, 7, new(stage.Buffers))
	}
	rng := rand.New(rand.NewPCG(25, 6))
	bufs := new(stage.Buffers)
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(nfkcAlphabet[rng.IntN(len(nfkcAlphabet))])
		}
		checkNFKCWords(t, b.String(), int32(rng.IntN(3)), bufs)
	}
}

// FuzzNFKCWords: the same for any text.
func FuzzNFKCWords(f *testing.F) {
	for _, s := range []string{"ｶﾞｲﾄﾞ", "e\u0301\u0323x", "가\u11a8", "（１）", "a\xff\u3099"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if text == "" {
			return
		}
		checkNFKCWords(t, text, 3, new(stage.Buffers))
	})
}

// TestNFKCPlainRanges: the ranges nfkcPlain answers without its tables
// are plain by the tables, and a few chars are what they are known to be.
func TestNFKCPlainRanges(t *testing.T) {
	for _, rg := range [][2]rune{{0x4E00, 0x9FFF}, {0x3400, 0x4DBF}, {0, utf8.RuneSelf - 1}} {
		for r := rg[0]; r <= rg[1]; r++ {
			if !computeNFKCPlain(r) {
				t.Fatalf("U+%04X is taken as plain without the tables, but is not", r)
			}
		}
	}
	for r, want := range map[rune]bool{
		'が': true, 'か': true, '가': true, 'é': true, 'ｶ': false, '（': false, '\u3099': false, '\u309b': false,
		'\u0301': false, '\u1161': false, '\u11a8': false, 'ﬁ': false, '\uf900': false, '㋿': true, '\ufffd': true,
	} {
		if got := nfkcPlain(r, utf8.RuneLen(r)); got != want {
			t.Errorf("nfkcPlain(%+q) = %v, want %v", r, got, want)
		}
	}
	if nfkcPlain(utf8.RuneError, 1) {
		t.Error("an invalid byte is plain")
	}
}
