package tokenizer

import (
	"fmt"
	"unicode/utf8"

	"qa-shard/tokenizer/tokens"
)

// normalized is tokenizers' NormalizedString: a text being normalized and
// pre-tokenized, with, for every byte of it, the code-point range of the
// original text it came from (HF keeps byte ranges and converts them to
// chars at the end; code points from the start give the same offsets).
// base is where this piece's original text starts: HF aligns a char
// inserted before everything else to (0, 0) of the piece's original.
type normalized struct {
	s     string
	align []tokens.Span
	base  int32
}

// newNormalized aligns every char of text to itself; cp is the code-point
// index of text's first char in the whole input.
func newNormalized(text string, cp int32) normalized {
	return newNormalizedIn(text, cp, nil)
}

// newNormalizedIn is newNormalized with the alignments in buf when it is
// large enough.
func newNormalizedIn(text string, cp int32, buf []tokens.Span) normalized {
	if cap(buf) < len(text) {
		buf = make([]tokens.Span, len(text))
	}
	n := normalized{s: text, align: buf[:len(text)], base: cp}
	for i := 0; i < len(text); {
		// An invalid byte is one code point, as utf8.RuneCountInString
		// counts it.
		_, size := utf8.DecodeRuneInString(text[i:])
		for k := range size {
			n.align[i+k] = tokens.Span{Start: cp, End: cp + 1}
		}
		i += size
		cp++
	}
	return n
}

// slice is the piece [a, b) of n (byte offsets), aligned as HF's
// NormalizedString::slice aligns it.
func (n normalized) slice(a, b int) normalized {
	out := normalized{s: n.s[a:b], align: n.align[a:b:b], base: n.base}
	if a < b {
		out.base = n.align[a].Start
	}
	return out
}

// original is the code-point range of the original text that the
// normalized bytes [a, b) come from (NormalizedString::convert_offsets).
func (n normalized) original(a, b int) tokens.Span {
	if a >= b {
		if a < len(n.align) {
			return tokens.Span{Start: n.align[a].Start, End: n.align[a].Start}
		}
		return tokens.Span{Start: n.base, End: n.base}
	}
	return tokens.Span{Start: n.align[a].Start, End: n.align[b-1].End}
}

// change is one char of a transformation, as in NormalizedString::transform:
// delta 0 replaces the next original char, +1 inserts a char (aligned like
// the char before it), -k replaces the next char and removes k more.
type change struct {
	r     rune
	delta int
}

// transformSpans rebuilds n from changes covering all of it, starting
// after the first skip chars (which are removed), exactly as tokenizers'
// NormalizedString::transform_range over the whole string. With whole
// set, a char that replaces several (a composition, -k) aligns to all of
// them rather than to the first alone, so that no original char falls
// outside every token.
func (n *normalized) transformSpans(changes []change, skip int, whole bool) {
	out, align := n.appendTransformed(nil, make([]tokens.Span, 0, len(n.s)), changes, skip, whole)
	n.s, n.align = string(out), align
}

// appendTransformed is transformSpans appending the text and alignments
// it rebuilds to out and align.
func (n *normalized) appendTransformed(out []byte, align []tokens.Span, changes []change, skip int, whole bool) ([]byte, []tokens.Span) {
	old := n.s
	offset := 0 // byte offset in old of the next char to replace
	next := func() int {
		if offset >= len(old) {
			return 0
		}
		_, size := utf8.DecodeRuneInString(old[offset:])
		return size
	}
	for range skip {
		offset += next()
	}
	for _, c := range changes {
		var a tokens.Span
		switch {
		case c.delta > 0 && offset < 1:
			a = tokens.Span{Start: n.base, End: n.base}
		case c.delta > 0:
			a = n.align[offset-1]
		case offset < len(n.align):
			a = n.align[offset]
		default:
			a = tokens.Span{Start: n.base, End: n.base}
		}
		if c.delta <= 0 {
			offset += next()
		}
		for range -c.delta {
			offset += next()
		}
		if whole && c.delta < 0 && offset > 0 && offset <= len(n.align) {
			a.End = max(a.End, n.align[offset-1].End)
		}
		size := len(out)
		out = utf8.AppendRune(out, c.r)
		for range len(out) - size {
			align = append(align, a)
		}
	}
	return out, align
}

// mapRunes replaces every char by zero or more chars, as HF's per-char
// rewrites do (NormalizedString::map, filter, lowercase and their
// sequences): every char emitted aligns to the char it came from (the first
// replaces it, the others are inserted after it and take the alignment of
// the char before them, which is the same), and a char that emits nothing
// is removed without a trace.
func (n *normalized) mapRunes(f func(r rune, dst []rune) []rune) {
	var out []byte
	var align []tokens.Span
	var buf []rune
	changed := false
	for i, r := range n.s {
		buf = f(r, buf[:0])
		if !changed {
			// Nothing to rebuild while every char maps to itself (an
			// invalid byte, read as U+FFFD, is rewritten as U+FFFD).
			if len(buf) == 1 && buf[0] == r && r != utf8.RuneError {
				continue
			}
			changed = true
			out = append(make([]byte, 0, len(n.s)+8), n.s[:i]...)
			align = append(make([]tokens.Span, 0, len(n.s)+8), n.align[:i]...)
		}
		a := n.align[i]
		for _, c := range buf {
			size := len(out)
			out = utf8.AppendRune(out, c)
			for range len(out) - size {
				align = append(align, a)
			}
		}
	}
	if changed {
		n.s, n.align = string(out), align
	}
}

// behavior is tokenizers' SplitDelimiterBehavior: what becomes of the
// delimiters a pre-tokenizer finds.
type behavior uint8

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("%w: split behavior %q is not supported (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)", ErrUnsupported, s)
}

// span is a byte range of a normalized string; match marks a delimiter.
type span struct {
	a, b  int
	match bool
}

// charSpans is Pattern::find_matches for a char predicate: every char
// that matches is a delimiter of its own, the runs between them are not.
func charSpans(s string, pred func(rune) bool, dst []span) []span {
	last := 0
	for i, r := range s {
		if !pred(r) {
			continue
		}
		if last < i {
			dst = append(dst, span{a: last, b: i})
		}
		last = i + utf8.RuneLen(r)
		if last <= i {
			last = i + 1
		}
		dst = append(dst, span{a: i, b: last, match: true})
	}
	if last < len(s) {
		dst = append(dst, span{a: last, b: len(s)})
	}
	return dst
}

// splitSpans is NormalizedString::split: spans (which cover n) are merged
// or dropped as b says, and every remaining non-empty one becomes a piece.
func splitSpans(n normalized, spans []span, b behavior, dst []normalized) []normalized {
	keep := func(a, e int) {
		if a < e {
			dst = append(dst, n.slice(a, e))
		}
	}
	switch b {
	case removed:
		for _, s := range spans {
			if !s.match {
				keep(s.a, s.b)
			}
		}
	case isolated:
		for _, s := range spans {
			keep(s.a, s.b)
		}
	case contiguous:
		for i := 0; i < len(spans); {
			j := i + 1
			for j < len(spans) && spans[j].match == spans[i].match {
				j++
			}
			keep(spans[i].a, spans[j-1].b)
			i = j
		}
	case mergedWithPrevious:
		var acc []span
		prev := false
		for _, s := range spans {
			if s.match && !prev && len(acc) > 0 {
				acc[len(acc)-1].b = s.b
			} else {
				acc = append(acc, s)
			}
			prev = s.match
		}
		for _, s := range acc {
			keep(s.a, s.b)
		}
	case mergedWithNext:
		var acc []span
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prev && len(acc) > 0 {
				acc[len(acc)-1].a = s.a
			} else {
				acc = append(acc, s)
			}
			prev = s.match
		}
		for i := len(acc) - 1; i >= 0; i-- {
			keep(acc[i].a, acc[i].b)
		}
	}
	return dst
}

// splitChars is splitSpans over charSpans: for Removed, the common case
// (whitespace), the pieces between matching chars are cut directly,
// without the list of spans.
func splitChars(n normalized, pred func(rune) bool, b behavior, dst []normalized) []normalized {
	if b != removed {
		return splitSpans(n, charSpans(n.s, pred, make([]span, 0, len(n.s)/4+2)), b, dst)
	}
	start := 0
	for i, r := range n.s {
		if !pred(r) {
			continue
		}
		if start < i {
			dst = append(dst, n.slice(start, i))
		}
		size := utf8.RuneLen(r)
		if size <= 0 {
			size = 1
		}
		start = i + size
	}
	if start < len(n.s) {
		dst = append(dst, n.slice(start, len(n.s)))
	}
	return dst
}

// decodeAt decodes the char at byte i of s, ASCII first; an invalid byte is
// a char of its own (RuneError, size 1). Every stage that walks a string
// char by char (ByteLevel, BPE's words) uses it.
func decodeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
