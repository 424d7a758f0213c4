package tokenizer

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// byteChars is GPT-2's bytes_to_unicode (tokenizers' bytes_char): the
// printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for
// themselves, the other 68 bytes, in order, for U+0100 upwards. Each entry
// is the char's UTF-8 (one byte for '!'..'~', two for the others).
var byteChars = func() (t [256]struct {
	b [2]byte
	n uint8
}) {
	next := rune(0x100)
	for b := range 256 {
		r := rune(b)
		if !(b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE) {
			r, next = next, next+1
		}
		t[b].n = uint8(utf8.EncodeRune(t[b].b[:], r))
	}
	return t
}()

// The classes the GPT-2 pattern sees a char in.
const (
	gpt2Other uint8 = iota // [^\s\p{L}\p{N}]
	gpt2Letter
	gpt2Number
	gpt2Space
)

// onigLetters and onigNumbers are the chars tokenizers' Oniguruma counts in
// \p{L} and \p{N} and Go's unicode tables (Unicode 15) do not: Unicode 16's
// new letters and digits. Found by sweeping every code point through npm
// tokenizers@0.23.2's ByteLevel pre-tokenizer; in the other direction there
// is no difference, and \s is exactly White_Space.
var onigLetters = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x1C89, 0x1C8A, 1}, {0xA7CB, 0xA7CD, 1}, {0xA7DA, 0xA7DC, 1},
	},
	R32: []unicode.Range32{
		{0x105C0, 0x105F3, 1}, {0x10D4A, 0x10D65, 1}, {0x10D6F, 0x10D85, 1}, {0x10EC2, 0x10EC4, 1},
		{0x11380, 0x11389, 1}, {0x1138B, 0x1138B, 1}, {0x1138E, 0x1138E, 1}, {0x11390, 0x113B5, 1},
		{0x113B7, 0x113B7, 1}, {0x113D1, 0x113D1, 1}, {0x113D3, 0x113D3, 1}, {0x11BC0, 0x11BE0, 1},
		{0x13460, 0x143FA, 1}, {0x16100, 0x1611D, 1}, {0x16D40, 0x16D6C, 1}, {0x18CFF, 0x18CFF, 1},
		{0x1E5D0, 0x1E5ED, 1}, {0x1E5F0, 0x1E5F0, 1}, {0x2EBF0, 0x2EE5D, 1},
	},
}

var onigNumbers = &unicode.RangeTable{
	R32: []unicode.Range32{
		{0x10D40, 0x10D49, 1}, {0x116D0, 0x116E3, 1}, {0x11BF0, 0x11BF9, 1}, {0x16130, 0x16139, 1},
		{0x16D70, 0x16D79, 1}, {0x1CCF0, 0x1CCF9, 1}, {0x1E5F1, 0x1E5FA, 1},
	},
}

// classOf is the class of any char, from the tables.
func classOf(r rune) uint8 {
	switch {
	case unicode.IsLetter(r) || unicode.Is(onigLetters, r):
		return gpt2Letter
	case unicode.IsNumber(r) || unicode.Is(onigNumbers, r):
		return gpt2Number
	case unicode.Is(unicode.White_Space, r):
		return gpt2Space
	}
	return gpt2Other
}

// bmpClasses caches classOf for the Basic Multilingual Plane, built the
// first time a ByteLevel pre-tokenizer is read.
var bmpClasses = sync.OnceValue(func() *[0x10000]uint8 {
	var t [0x10000]uint8
	for r := range rune(0x10000) {
		t[r] = classOf(r)
	}
	return &t
})

// gpt2Class is classOf through the BMP table. An invalid byte (RuneError)
// is other, as U+FFFD is.
func gpt2Class(t *[0x10000]uint8, r rune) uint8 {
	if r < 0x10000 {
		return t[r]
	}
	return classOf(r)
}
