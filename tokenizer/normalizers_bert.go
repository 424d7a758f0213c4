package tokenizer

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// bertConfig is BertNormalizer's configuration. Every step of it works char
// by char, so its whole effect on one original char can be computed once and
// looked up (see charTable); each normalized char then aligns to exactly the
// one original char it came from, which is how HF's alignments end up too.
type bertConfig struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

// Classes of a normalized char for BertPreTokenizer.
const (
	clsWord  uint8 = iota
	clsSpace       // split, removed
	clsPunct       // split, isolated as a word of its own
)

func preTokClass(r rune) uint8 {
	switch {
	case isWhitespace(r):
		return clsSpace
	case isBertPunc(r):
		return clsPunct
	}
	return clsWord
}

// apply appends the normalized form of one original char to dst and reports
// whether the char is a CJK ideograph, which handle_chinese_chars surrounds
// with spaces (so it becomes a word of its own).
func (n bertConfig) apply(r rune, dst []rune) ([]rune, bool) {
	if n.cleanText {
		if isCleanControl(r) {
			return dst, false
		}
		if isWhitespace(r) {
			r = ' '
		}
	}
	iso := n.chineseChars && isChineseChar(r)
	// HF order: strip accents (NFD, then drop Mn) before lowercasing, so
	// "İ" loses its dot as U+0307 before lowercase could add one back.
	var buf [4]rune
	chars := buf[:0]
	if n.stripAccents {
		var dec [4 * utf8.UTFMax]byte
		d := nfd(r, dec[:0])
		for len(d) > 0 {
			c, size := utf8.DecodeRune(d)
			d = d[size:]
			if !isMarkNonspacing(c) {
				chars = append(chars, c)
			}
		}
	} else {
		chars = append(chars, r)
	}
	for _, c := range chars {
		if n.lowercase {
			dst = toLowerFull(c, dst)
		} else {
			dst = append(dst, c)
		}
	}
	return dst, iso
}

// charEntry is the precomputed effect of one original char.
type charEntry struct {
	r   rune  // the normalized char when n == 1, else an index into charTable.multi
	n   uint8 // normalized chars: 0 when clean_text drops the char
	cls uint8 // preTokClass of r when n == 1
	iso bool  // CJK ideograph: a word by itself
}

// charTable caches charEntry for the Basic Multilingual Plane, which holds
// nearly every char of real text; rarer chars are computed on the fly.
type charTable struct {
	norm  bertConfig
	bmp   []charEntry
	multi []rune
}

func newCharTable(n bertConfig) *charTable {
	t := &charTable{norm: n, bmp: make([]charEntry, 0x10000)}
	var scratch []rune
	for r := rune(0); r < 0x10000; r++ {
		var iso bool
		scratch, iso = n.apply(r, scratch[:0])
		e := charEntry{n: uint8(len(scratch)), iso: iso}
		switch len(scratch) {
		case 0:
		case 1:
			e.r, e.cls = scratch[0], preTokClass(scratch[0])
		default:
			e.r = rune(len(t.multi))
			t.multi = append(t.multi, scratch...)
		}
		t.bmp[r] = e
	}
	return t
}

// nfd appends the canonical decomposition of r as HF computes it.
func nfd(r rune, dst []byte) []byte {
	if s, ok := hfNFD[r]; ok {
		return append(dst, s...)
	}
	var enc [utf8.UTFMax]byte
	return norm.NFD.Append(dst, enc[:utf8.EncodeRune(enc[:], r)]...)
}
