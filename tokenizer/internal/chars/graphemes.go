package chars

import (
	"sort"
	"unicode/utf8"
)

// Extended grapheme clusters as the crate unicode-segmentation 1.13
// (Unicode 17.0.0) cuts them for tokenizers' Precompiled normalizer
// (str::graphemes(true)): the rules of UAX #29 over its
// Grapheme_Cluster_Break table (graphemes_table.go).
//
// Rule GB9c (no break inside an Indic conjunct: consonant, linker,
// consonant) is left out: it only ever joins chars of three bytes into a
// cluster of at least nine, and Precompiled looks a cluster up whole only
// below six bytes, char by char otherwise, so where GB9c puts a boundary
// never changes what the normalizer does.

type gcb uint8

const (
	gcOther gcb = iota
	gcCR
	gcLF
	gcControl
	gcExtend
	gcZWJ
	gcPrepend
	gcSpacingMark
	gcRI
	gcPict // Extended_Pictographic
	gcL
	gcV
	gcT
	gcLV
	gcLVT
)

type gcbRange struct {
	lo, hi rune
	cat    gcb
}

// gcbBMP is the category of every code point below U+10000.
var gcbBMP = func() *[0x10000]gcb {
	t := new([0x10000]gcb)
	for r := range rune(0x80) {
		switch {
		case r == '\r':
			t[r] = gcCR
		case r == '\n':
			t[r] = gcLF
		case r < 0x20 || r == 0x7F:
			t[r] = gcControl
		}
	}
	for _, g := range gcbRanges {
		for r := g.lo; r <= g.hi && r < 0x10000; r++ {
			t[r] = g.cat
		}
	}
	for r := rune(0xAC00); r <= 0xD7A3; r++ {
		t[r] = gcLVT
		if (r-0xAC00)%28 == 0 {
			t[r] = gcLV
		}
	}
	return t
}()

func graphemeCat(r rune) gcb {
	if r < 0x10000 {
		if r < 0 {
			return gcOther
		}
		return gcbBMP[r]
	}
	i := sort.Search(len(gcbRanges), func(i int) bool { return gcbRanges[i].hi >= r })
	if i < len(gcbRanges) && gcbRanges[i].lo <= r {
		return gcbRanges[i].cat
	}
	return gcOther
}

// GraphemeEnd is the end of the extended grapheme cluster that starts at
// byte i of s (i < len(s)). An invalid byte is a cluster of its own.
func GraphemeEnd(s string, i int) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return i + 1
	}
	prev := graphemeCat(r)
	j := i + size
	switch prev {
	case gcCR:
		if j < len(s) && s[j] == '\n' {
			return j + 1 // GB3
		}
		return j // GB4
	case gcLF, gcControl:
		return j // GB4
	}
	pict := prev == gcPict // the cluster ends with ExtPict Extend*
	pictZWJ := false       // ... ExtPict Extend* ZWJ
	ri := 0                // regional indicators ending the cluster
	if prev == gcRI {
		ri = 1
	}
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == utf8.RuneError && size == 1 {
			return j
		}
		cur := graphemeCat(r)
		join := false
		switch {
		case cur == gcCR || cur == gcLF || cur == gcControl: // GB5
		case prev == gcL && (cur == gcL || cur == gcV || cur == gcLV || cur == gcLVT): // GB6
			join = true
		case (prev == gcLV || prev == gcV) && (cur == gcV || cur == gcT): // GB7
			join = true
		case (prev == gcLVT || prev == gcT) && cur == gcT: // GB8
			join = true
		case cur == gcExtend || cur == gcZWJ || cur == gcSpacingMark: // GB9, GB9a
			join = true
		case prev == gcPrepend: // GB9b
			join = true
		case pictZWJ && cur == gcPict: // GB11
			join = true
		case prev == gcRI && cur == gcRI && ri%2 == 1: // GB12, GB13
			join = true
		}
		if !join {
			return j
		}
		pictZWJ = pict && cur == gcZWJ
		pict = cur == gcPict || pict && cur == gcExtend
		if cur == gcRI {
			ri++
		} else {
			ri = 0
		}
		prev = cur
		j += size
	}
	return j
}
