package pretokenizers

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// byteLevel is tokenizers' ByteLevel pre-tokenizer: with add_prefix_space
// a piece that does not start with a space gets one, with use_regex it is
// cut at GPT-2's pattern (behavior Isolated), then every byte of every
// split becomes one char of GPT-2's byte alphabet. trim_offsets only
// matters to the post-processor (processors.go), not here.
type byteLevel struct {
	prefixSpace, useRegex bool
	classes               *[0x10000]uint8
}

func parseByteLevel(raw json.RawMessage) (stage.PreTokenizer, error) {
	var c struct {
		Type           string `json:"type"`
		AddPrefixSpace *bool  `json:"add_prefix_space"`
		TrimOffsets    *bool  `json:"trim_offsets"`
		UseRegex       *bool  `json:"use_regex"`
	}
	if err := hfjson.Strict(raw, &c, "ByteLevel pre_tokenizer"); err != nil {
		return nil, err
	}
	// tokenizers requires both flags; only use_regex has a default (true).
	if c.AddPrefixSpace == nil || c.TrimOffsets == nil {
		return nil, fmt.Errorf("ByteLevel pre_tokenizer: add_prefix_space and trim_offsets are required")
	}
	return byteLevel{prefixSpace: *c.AddPrefixSpace, useRegex: hfjson.OrTrue(c.UseRegex), classes: bmpClasses()}, nil
}

func (b byteLevel) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	if n.S == "" {
		return dst
	}
	if b.prefixSpace && n.S[0] != ' ' {
		n = prependSpace(n)
	}
	s := n.S
	// The whole piece is mapped once; the splits are slices of it, aligned
	// as HF aligns each split after its own transform.
	size := 0
	for i := 0; i < len(s); i++ {
		size += int(byteChars[s[i]].n)
	}
	out := make([]byte, size)
	align := make([]tokens.Span, size)
	bounds := make([]int32, 0, len(s)/4+2)
	bounds = append(bounds, 0)
	w := 0
	for i := 0; i < len(s); {
		j := len(s)
		if b.useRegex {
			j = gpt2Match(s, i, b.classes)
		}
		w = mapBytes(s[i:j], n.Align[i:j], out, align, w)
		bounds = append(bounds, int32(w))
		i = j
	}
	mapped := unsafe.String(unsafe.SliceData(out), len(out)) // out is never written again
	dst = slices.Grow(dst, len(bounds)-1)
	for k := 1; k < len(bounds); k++ {
		a, e := bounds[k-1], bounds[k]
		dst = append(dst, stage.Normalized{S: mapped[a:e], Align: align[a:e:e], Base: align[a].Start})
	}
	return dst
}

// mapBytes writes the byte-level chars of s (aligned by al) at w of out
// and align, which have room for them, and returns the new w. As
// NormalizedString::transform aligns them, the first char of each original
// char replaces it (its first byte's alignment) and the others are
// inserted after it (the alignment of its last byte).
func mapBytes(s string, al []tokens.Span, out []byte, align []tokens.Span, w int) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			m := &byteChars[c]
			out[w], align[w] = m.b[0], al[i]
			if m.n == 2 {
				out[w+1], align[w+1] = m.b[1], al[i]
			}
			w += int(m.n)
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		a := al[i]
		for k := i; k < i+size; k++ {
			m := &byteChars[s[k]]
			for j := range m.n {
				out[w], align[w] = m.b[j], a
				w++
			}
			a = al[i+size-1]
		}
		i += size
	}
	return w
}

// prependSpace is NormalizedString::prepend(" "): the space replaces the
// first char (taking its first byte's alignment) and the char is inserted
// back after it (taking its last byte's).
func prependSpace(n stage.Normalized) stage.Normalized {
	_, size := utf8.DecodeRuneInString(n.S)
	align := make([]tokens.Span, 0, len(n.Align)+1)
	align = append(align, n.Align[0])
	for range size {
		align = append(align, n.Align[size-1])
	}
	align = append(align, n.Align[size:]...)
	return stage.Normalized{S: " " + n.S, Align: align, Base: n.Base}
}

// gpt2Match returns the end of the match of GPT-2's pattern
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// that starts at byte i of s, as tokenizers' Oniguruma finds it (first
// alternative that matches, each quantifier greedy). Every char is in one
// of the classes, so the matches tile the text and a search for the next
// match always starts at the end of the last one.
func gpt2Match(s string, i int, t *[0x10000]uint8) int {
	if s[i] == '\'' && i+1 < len(s) {
		// The contractions, lower case only, and only where a match starts.
		switch s[i+1] {
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v':
			if i+2 < len(s) && s[i+2] == 'e' {
				return i + 3
			}
		case 'l':
			if i+2 < len(s) && s[i+2] == 'l' {
				return i + 3
			}
		}
	}
	r, size := stage.DecodeAt(s, i)
	k := gpt2Class(t, r)
	if r == ' ' && i+1 < len(s) {
		// " ?X+": a single U+0020 joins the run of letters, digits or
		// others that follows it.
		r2, size2 := stage.DecodeAt(s, i+1)
		if k2 := gpt2Class(t, r2); k2 != gpt2Space {
			k, i, size = k2, i+1, size2
		}
	}
	if k != gpt2Space {
		j := i + size
		for j < len(s) {
			r, size := stage.DecodeAt(s, j)
			if gpt2Class(t, r) != k {
				break
			}
			j += size
		}
		return j
	}
	// "\s+(?!\S)": the whole run of whitespace at the end of the text;
	// before a non-space, the run backs off its last char so that char can
	// go with the word after it ("  a" is " ", " a"); a run of one char
	// there is taken by the last alternative, "\s+".
	j, last := i, i
	for j < len(s) {
		r, size := stage.DecodeAt(s, j)
		if gpt2Class(t, r) != gpt2Space {
			break
		}
		last = j
		j += size
	}
	if j < len(s) && last > i {
		return last
	}
	return j
}

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

// Alphabet is the 256 chars ByteLevel maps the bytes 0 to 255 to, in byte
// order (tokenizers' ByteLevel::alphabet): a byte-level BPE's base
// vocabulary.
func Alphabet() []string {
	out := make([]string, len(byteChars))
	for b, m := range byteChars {
		out[b] = string(m.b[:m.n])
	}
	return out
}

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
