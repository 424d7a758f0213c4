package normalizers

import (
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// NFKCWords is NFKC with every composed char aligned to all it came from
// (UnicodeForm with whole). A text already in NFKC (most Japanese text)
// is left as it is. Otherwise only the stretches that can change are
// rebuilt: every run of chars that are not plain (see nfkcPlain), with
// the plain char before it; the plain runs between them are copied as
// they are, alignments and all. That is UnicodeForm over the whole text,
// change for change: a plain char starts with a starter that composes
// with nothing before it, so decomposition, canonical ordering and
// composition all start afresh there, and on a plain run they change
// nothing.
type NFKCWords struct{}

func (NFKCWords) Normalize(n *stage.Normalized) {
	NFKCWords{}.rebuild(n, nil, nil)
}

func (NFKCWords) NormalizeBuffered(n *stage.Normalized, b *stage.Buffers) {
	b.Bytes, b.Norm = NFKCWords{}.rebuild(n, b.Bytes[:0], b.Norm[:0])
}

// rebuild is normalize building the text in out and the alignments in
// align, grown when too small; it returns both (n.align is the latter).
func (NFKCWords) rebuild(n *stage.Normalized, out []byte, align []tokens.Span) ([]byte, []tokens.Span) {
	if norm.NFKC.IsNormalString(n.S) {
		return out, align
	}
	f := UnicodeForm{Compat: true, Compose: true, Whole: true}
	s := n.S
	var (
		dec, comp  []stage.Change
		done       int // s[:done] is in out
		lastPlain  = -1
		regionFrom int
		started    bool
	)
	for i := 0; i < len(s); {
		r, size := decodeRune(s, i)
		if nfkcPlain(r, size) {
			lastPlain = i
			i += size
			continue
		}
		// A region: from the plain char before i (every char since done
		// is plain), or from done at the start, to the next plain char.
		regionFrom = done
		if lastPlain >= done {
			regionFrom = lastPlain
		}
		end := i + size
		for end < len(s) {
			r, size := decodeRune(s, end)
			if nfkcPlain(r, size) {
				break
			}
			end += size
		}
		if !started {
			started = true
			out = slices.Grow(out, len(s)+len(s)/8+8)
			align = slices.Grow(align, len(s)+len(s)/8+8)
		}
		out = append(out, s[done:regionFrom]...)
		align = append(align, n.Align[done:regionFrom]...)
		// The region's base matters only to a char inserted before its
		// first, which only the text's own first char can have.
		region := stage.Normalized{S: s[regionFrom:end], Align: n.Align[regionFrom:end:end], Base: n.Base}
		dec = f.decompose(dec[:0], region.S)
		comp = recompose(comp[:0], dec)
		out, align = region.AppendTransformed(out, align, comp, 0, f.Whole)
		done, i = end, end
	}
	if !started {
		// Every char plain: not in NFKC by golang.org/x/text's tables but
		// unchanged by the crate's (such as ㋿, which only newer tables
		// decompose; see package chars' tables), as UnicodeForm leaves it.
		return out, align
	}
	out = append(out, s[done:]...)
	align = append(align, n.Align[done:]...)
	n.S, n.Align = string(out), align
	return out, align
}

// decodeRune is utf8.DecodeRuneInString(s[i:]) with ASCII inline.
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// nfkcPlain says whether the char r (size bytes of the text; an invalid
// byte is never plain, NFKC rewrites it as U+FFFD) is plain: NFKC (the
// crate's, as UnicodeForm runs it) leaves it as it is, its decomposition
// starts with a starter, and that starter is the second char of no
// composition, so that nothing before it can compose with it or be
// reordered past it.
func nfkcPlain(r rune, size int) bool {
	switch {
	case r < utf8.RuneSelf:
		return true
	case r == utf8.RuneError && size == 1:
		return false
	case 0x4E00 <= r && r <= 0x9FFF, 0x3400 <= r && r <= 0x4DBF:
		// CJK Unified Ideographs and Extension A: no decomposition, class
		// 0, in no composition (TestNFKCPlainRanges checks every one).
		return true
	}
	b := &nfkcPlainBlocks[r>>8]
	blk := b.Load()
	if blk == nil {
		blk = new([256]bool)
		for k := range blk {
			blk[k] = computeNFKCPlain(r&^0xFF | rune(k))
		}
		b.Store(blk) // two goroutines may both build it: the same table
	}
	return blk[r&0xFF]
}

// nfkcPlainBlocks hold nfkcPlain for each block of 256 code points, built
// the first time a char of the block is looked up.
var nfkcPlainBlocks [(utf8.MaxRune + 1) >> 8]atomic.Pointer[[256]bool]

func computeNFKCPlain(r rune) bool {
	if 0xD800 <= r && r < 0xE000 {
		return false // a surrogate never comes out of a decoded string
	}
	var buf [32]rune
	d := decomposeRune(r, true, buf[:0])
	if len(d) == 0 || combiningClass(d[0]) != 0 || isSecondOfComposition(d[0]) {
		return false
	}
	f := UnicodeForm{Compat: true, Compose: true}
	var dec, comp [8]stage.Change
	c := recompose(comp[:0], f.decompose(dec[:0], string(r)))
	return len(c) == 1 && c[0].R == r && c[0].Delta == 0
}

// isSecondOfComposition says whether some char composes with r after it
// (composePair(x, r) for some x).
func isSecondOfComposition(r rune) bool {
	if hangulV <= r && r < hangulV+21 || hangulT < r && r < hangulT+28 {
		return true
	}
	composeOnce.Do(buildCompose)
	return composeSeconds[r]
}
