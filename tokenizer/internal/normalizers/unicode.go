package normalizers

import (
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/stage"
)

// UnicodeForm is NFD, NFKD, NFC or NFKC. HF runs the Rust crate
// unicode-normalization-alignments over the whole normalized string and
// hands its (char, change) pairs to NormalizedString::transform, so the
// alignments come from those changes: decomposition emits the first char of
// each decomposed char as a replacement (0) and the others as insertions
// (+1), canonical reordering moves those pairs around, and every
// composition of a starter with a following char adds the two changes and
// subtracts one. UnicodeForm computes the same pairs; the Unicode tables are
// golang.org/x/text/unicode/norm's, corrected where the crate's older
// tables disagree (chars.Canonical and the other tables of package chars).
//
// With whole, a composed char aligns to every char it was composed from
// (HF aligns it to the first alone): the word-split tokenizers use it so
// that an answer ending in ｶﾞ keeps its ﾞ.
type UnicodeForm struct{ Compat, Compose, Whole bool }

func (f UnicodeForm) Normalize(n *stage.Normalized) {
	ascii := true
	for i := 0; i < len(n.S); i++ {
		if n.S[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// ASCII neither decomposes nor composes, and has combining class
		// 0: every pair is (c, 0), which changes nothing.
		return
	}
	changes := f.decompose(make([]stage.Change, 0, len(n.S)+len(n.S)/4), n.S)
	if f.Compose {
		changes = recompose(make([]stage.Change, 0, len(changes)), changes)
	}
	n.TransformSpans(changes, 0, f.Whole)
}

// decompose is the crate's Decompositions iterator: every char's full
// decomposition, its first char a replacement and the others insertions,
// then each run of non-starters stably sorted by combining class. The
// changes are appended to out.
func (f UnicodeForm) decompose(out []stage.Change, s string) []stage.Change {
	from := len(out)
	var dec [32]rune
	for _, r := range s {
		for i, d := range decomposeRune(r, f.Compat, dec[:0]) {
			c := stage.Change{R: d}
			if i > 0 {
				c.Delta = 1
			}
			out = append(out, c)
		}
	}
	// Canonical ordering: the crate sorts the pending chars by class each
	// time a starter arrives (sort_by_key, which is stable).
	for i := from; i < len(out); {
		if combiningClass(out[i].R) == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(out) && combiningClass(out[j].R) != 0 {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(out[i:j], func(a, b stage.Change) int {
				return int(combiningClass(a.R)) - int(combiningClass(b.R))
			})
		}
		i = j
	}
	return out
}

// recompose is the crate's Recompositions iterator over decomposed pairs:
// a starter (the composee) absorbs every following char it composes with
// and that is not blocked, its change becoming composee + char - 1; the
// chars left over follow it in order. They are appended to out.
func recompose(out, in []stage.Change) []stage.Change {
	var (
		composee    stage.Change
		hasComposee bool
		lastCCC     = -1 // none since the composee
		buffer      []stage.Change
	)
	for _, c := range in {
		cc := int(combiningClass(c.R))
		if !hasComposee {
			if cc != 0 {
				out = append(out, c)
				continue
			}
			composee, hasComposee = c, true
			continue
		}
		if lastCCC >= 0 && lastCCC >= cc {
			// c is blocked from the composee.
			if cc == 0 {
				out = append(out, composee)
				out = append(out, buffer...)
				buffer = buffer[:0]
				composee, lastCCC = c, -1
				continue
			}
			buffer = append(buffer, c)
			lastCCC = cc
			continue
		}
		if r, ok := composePair(composee.R, c.R); ok {
			composee = stage.Change{R: r, Delta: composee.Delta + c.Delta - 1}
			continue
		}
		if lastCCC < 0 && cc == 0 {
			out = append(out, composee)
			composee = c
			continue
		}
		buffer = append(buffer, c)
		lastCCC = cc
	}
	if hasComposee {
		out = append(out, composee)
	}
	return append(out, buffer...)
}

// Hangul syllables decompose and compose arithmetically (Unicode 3.12).
const (
	hangulS = 0xAC00
	hangulL = 0x1100
	hangulV = 0x1161
	hangulT = 0x11A7
	hangulN = 21 * 28
	hangulC = 19 * hangulN
)

// decomposeRune appends the full canonical (or compatibility)
// decomposition of r, r itself when it has none.
func decomposeRune(r rune, compat bool, dst []rune) []rune {
	if r < 0xC0 && (!compat || r < 0xA0) {
		return append(dst, r)
	}
	if s := r - hangulS; 0 <= s && s < hangulC {
		dst = append(dst, hangulL+s/hangulN, hangulV+(s%hangulN)/28)
		if t := s % 28; t != 0 {
			dst = append(dst, hangulT+t)
		}
		return dst
	}
	exc := chars.Canonical
	form := norm.NFD
	if compat {
		exc, form = chars.Compat, norm.NFKD
	}
	if d, ok := exc[r]; ok {
		for _, c := range d {
			dst = append(dst, c)
		}
		return dst
	}
	var buf [utf8.UTFMax]byte
	d := form.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition()
	if d == nil {
		return append(dst, r)
	}
	for len(d) > 0 {
		c, size := utf8.DecodeRune(d)
		dst = append(dst, c)
		d = d[size:]
	}
	return dst
}

// combiningClass is r's canonical combining class in the crate's tables.
func combiningClass(r rune) uint8 {
	if r < 0x300 {
		return 0
	}
	if _, ok := chars.Starters[r]; ok {
		return 0
	}
	var buf [utf8.UTFMax]byte
	return norm.NFD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).CCC()
}

// composePair is the crate's char::compose: the primary composite of a and
// b, if any (Hangul arithmetically, the rest from the table).
func composePair(a, b rune) (rune, bool) {
	if l := a - hangulL; 0 <= l && l < 19 {
		if v := b - hangulV; 0 <= v && v < 21 {
			return hangulS + (l*21+v)*28, true
		}
		return 0, false
	}
	if s := a - hangulS; 0 <= s && s < hangulC && s%28 == 0 {
		if t := b - hangulT; 0 < t && t < 28 {
			return a + t, true
		}
		return 0, false
	}
	if b < 0x300 {
		// The second char of every primary composite is a combining mark,
		// an Indic vowel sign or the like, never below U+0300.
		return 0, false
	}
	composeOnce.Do(buildCompose)
	r, ok := composeTable[[2]rune{a, b}]
	return r, ok
}

var (
	composeOnce  sync.Once
	composeTable map[[2]rune]rune
	// composeSeconds are the second chars of composeTable's pairs.
	composeSeconds map[rune]bool
)

// buildCompose reads the primary composites off golang.org/x/text: every
// char that decomposes canonically, survives NFC as itself and is not one
// the crate's tables leave undecomposed is the composite of its
// decomposition's last char with the NFC of the rest. Composites all lie
// in planes 0 and 1.
func buildCompose() {
	composeTable = make(map[[2]rune]rune, 1024)
	composeSeconds = make(map[rune]bool, 64)
	var d []rune
	var buf [utf8.UTFMax]byte
	for r := rune(0xC0); r < 0x20000; r++ {
		if 0xD800 <= r && r < 0xE000 || hangulS <= r && r < hangulS+hangulC {
			continue
		}
		if norm.NFD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition() == nil {
			// No canonical decomposition in golang.org/x/text's tables,
			// and none in the crate's (chars.Canonical only takes some away):
			// most chars, skipped before the lookups below.
			continue
		}
		if _, ok := chars.Canonical[r]; ok {
			continue
		}
		d = decomposeRune(r, false, d[:0])
		if len(d) < 2 || norm.NFC.String(string(r)) != string(r) {
			continue
		}
		head := []rune(norm.NFC.String(string(d[:len(d)-1])))
		last := d[len(d)-1]
		if len(head) != 1 || norm.NFC.String(string([]rune{head[0], last})) != string(r) {
			continue
		}
		if last < 0x300 {
			panic("normalizers: a primary composite whose second char is below U+0300")
		}
		composeTable[[2]rune{head[0], last}] = r
		composeSeconds[last] = true
	}
}
