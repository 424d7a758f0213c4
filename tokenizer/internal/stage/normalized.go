package stage

import (
	"fmt"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/tokens"
)

// Normalized is tokenizers' NormalizedString: a text being Normalized and
// pre-tokenized, with, for every byte of it, the code-point range of the
// original text it came from (HF keeps byte ranges and converts them to
// chars at the end; code points from the start give the same offsets).
// base is where this piece's original text starts: HF aligns a char
// inserted before everything else to (0, 0) of the piece's original.
type Normalized struct {
	S     string
	Align []tokens.Span
	Base  int32
}

// NewNormalized aligns every char of text to itself; cp is the code-point
// index of text's first char in the whole input.
func NewNormalized(text string, cp int32) Normalized {
	return NewNormalizedIn(text, cp, nil)
}

// NewNormalizedIn is newNormalized with the alignments in buf when it is
// large enough.
func NewNormalizedIn(text string, cp int32, buf []tokens.Span) Normalized {
	if cap(buf) < len(text) {
		buf = make([]tokens.Span, len(text))
	}
	n := Normalized{S: text, Align: buf[:len(text)], Base: cp}
	for i := 0; i < len(text); {
		// An invalid byte is one code point, as utf8.RuneCountInString
		// counts it.
		_, size := utf8.DecodeRuneInString(text[i:])
		for k := range size {
			n.Align[i+k] = tokens.Span{Start: cp, End: cp + 1}
		}
		i += size
		cp++
	}
	return n
}

// Slice is the piece [a, b) of n (byte offsets), aligned as HF's
// NormalizedString::Slice aligns it.
func (n Normalized) Slice(a, b int) Normalized {
	out := Normalized{S: n.S[a:b], Align: n.Align[a:b:b], Base: n.Base}
	if a < b {
		out.Base = n.Align[a].Start
	}
	return out
}

// Original is the code-point range of the Original text that the
// normalized bytes [a, b) come from (NormalizedString::convert_offsets).
func (n Normalized) Original(a, b int) tokens.Span {
	if a >= b {
		if a < len(n.Align) {
			return tokens.Span{Start: n.Align[a].Start, End: n.Align[a].Start}
		}
		return tokens.Span{Start: n.Base, End: n.Base}
	}
	return tokens.Span{Start: n.Align[a].Start, End: n.Align[b-1].End}
}

// Change is one char of a transformation, as in NormalizedString::transform:
// delta 0 replaces the next original char, +1 inserts a char (aligned like
// the char before it), -k replaces the next char and removes k more.
type Change struct {
	R     rune
	Delta int
}

// TransformSpans rebuilds n from changes covering all of it, starting
// after the first skip chars (which are removed), exactly as tokenizers'
// NormalizedString::transform_range over the whole string. With whole
// set, a char that replaces several (a composition, -k) aligns to all of
// them rather than to the first alone, so that no original char falls
// outside every token.
func (n *Normalized) TransformSpans(changes []Change, skip int, whole bool) {
	out, align := n.AppendTransformed(nil, make([]tokens.Span, 0, len(n.S)), changes, skip, whole)
	n.S, n.Align = string(out), align
}

// AppendTransformed is transformSpans appending the text and alignments
// it rebuilds to out and align.
func (n *Normalized) AppendTransformed(out []byte, align []tokens.Span, changes []Change, skip int, whole bool) ([]byte, []tokens.Span) {
	old := n.S
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
		case c.Delta > 0 && offset < 1:
			a = tokens.Span{Start: n.Base, End: n.Base}
		case c.Delta > 0:
			a = n.Align[offset-1]
		case offset < len(n.Align):
			a = n.Align[offset]
		default:
			a = tokens.Span{Start: n.Base, End: n.Base}
		}
		if c.Delta <= 0 {
			offset += next()
		}
		for range -c.Delta {
			offset += next()
		}
		if whole && c.Delta < 0 && offset > 0 && offset <= len(n.Align) {
			a.End = max(a.End, n.Align[offset-1].End)
		}
		size := len(out)
		out = utf8.AppendRune(out, c.R)
		for range len(out) - size {
			align = append(align, a)
		}
	}
	return out, align
}

// MapRunes replaces every char by zero or more chars, as HF's per-char
// rewrites do (NormalizedString::map, filter, lowercase and their
// sequences): every char emitted aligns to the char it came from (the first
// replaces it, the others are inserted after it and take the alignment of
// the char before them, which is the same), and a char that emits nothing
// is removed without a trace.
func (n *Normalized) MapRunes(f func(r rune, dst []rune) []rune) {
	var out []byte
	var align []tokens.Span
	var buf []rune
	changed := false
	for i, r := range n.S {
		buf = f(r, buf[:0])
		if !changed {
			// Nothing to rebuild while every char maps to itself (an
			// invalid byte, read as U+FFFD, is rewritten as U+FFFD).
			if len(buf) == 1 && buf[0] == r && r != utf8.RuneError {
				continue
			}
			changed = true
			out = append(make([]byte, 0, len(n.S)+8), n.S[:i]...)
			align = append(make([]tokens.Span, 0, len(n.S)+8), n.Align[:i]...)
		}
		a := n.Align[i]
		for _, c := range buf {
			size := len(out)
			out = utf8.AppendRune(out, c)
			for range len(out) - size {
				align = append(align, a)
			}
		}
	}
	if changed {
		n.S, n.Align = string(out), align
	}
}

// Behavior is tokenizers' SplitDelimiterBehavior: what becomes of the
// delimiters a pre-tokenizer finds.
type Behavior uint8

const (
	Removed Behavior = iota
	Isolated
	MergedWithPrevious
	MergedWithNext
	Contiguous
)

func ParseBehavior(s string) (Behavior, error) {
	switch s {
	case "Removed":
		return Removed, nil
	case "Isolated":
		return Isolated, nil
	case "MergedWithPrevious":
		return MergedWithPrevious, nil
	case "MergedWithNext":
		return MergedWithNext, nil
	case "Contiguous":
		return Contiguous, nil
	}
	return 0, fmt.Errorf("%w: split behavior %q is not supported (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)", hfjson.ErrUnsupported, s)
}

// ByteRange is a byte range of a normalized string; match marks a delimiter.
type ByteRange struct {
	A, B  int
	Match bool
}

// charSpans is Pattern::find_matches for a char predicate: every char
// that matches is a delimiter of its own, the runs between them are not.
func charSpans(s string, pred func(rune) bool, dst []ByteRange) []ByteRange {
	last := 0
	for i, r := range s {
		if !pred(r) {
			continue
		}
		if last < i {
			dst = append(dst, ByteRange{A: last, B: i})
		}
		last = i + utf8.RuneLen(r)
		if last <= i {
			last = i + 1
		}
		dst = append(dst, ByteRange{A: i, B: last, Match: true})
	}
	if last < len(s) {
		dst = append(dst, ByteRange{A: last, B: len(s)})
	}
	return dst
}

// SplitSpans is NormalizedString::split: spans (which cover n) are merged
// or dropped as b says, and every remaining non-empty one becomes a piece.
func SplitSpans(n Normalized, spans []ByteRange, b Behavior, dst []Normalized) []Normalized {
	keep := func(a, e int) {
		if a < e {
			dst = append(dst, n.Slice(a, e))
		}
	}
	switch b {
	case Removed:
		for _, s := range spans {
			if !s.Match {
				keep(s.A, s.B)
			}
		}
	case Isolated:
		for _, s := range spans {
			keep(s.A, s.B)
		}
	case Contiguous:
		for i := 0; i < len(spans); {
			j := i + 1
			for j < len(spans) && spans[j].Match == spans[i].Match {
				j++
			}
			keep(spans[i].A, spans[j-1].B)
			i = j
		}
	case MergedWithPrevious:
		var acc []ByteRange
		prev := false
		for _, s := range spans {
			if s.Match && !prev && len(acc) > 0 {
				acc[len(acc)-1].B = s.B
			} else {
				acc = append(acc, s)
			}
			prev = s.Match
		}
		for _, s := range acc {
			keep(s.A, s.B)
		}
	case MergedWithNext:
		var acc []ByteRange
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.Match && !prev && len(acc) > 0 {
				acc[len(acc)-1].A = s.A
			} else {
				acc = append(acc, s)
			}
			prev = s.Match
		}
		for i := len(acc) - 1; i >= 0; i-- {
			keep(acc[i].A, acc[i].B)
		}
	}
	return dst
}

// SplitChars is splitSpans over charSpans: for Removed, the common case
// (whitespace), the pieces between matching chars are cut directly,
// without the list of spans.
func SplitChars(n Normalized, pred func(rune) bool, b Behavior, dst []Normalized) []Normalized {
	if b != Removed {
		return SplitSpans(n, charSpans(n.S, pred, make([]ByteRange, 0, len(n.S)/4+2)), b, dst)
	}
	start := 0
	for i, r := range n.S {
		if !pred(r) {
			continue
		}
		if start < i {
			dst = append(dst, n.Slice(start, i))
		}
		size := utf8.RuneLen(r)
		if size <= 0 {
			size = 1
		}
		start = i + size
	}
	if start < len(n.S) {
		dst = append(dst, n.Slice(start, len(n.S)))
	}
	return dst
}

// DecodeAt decodes the char at byte i of s, ASCII first; an invalid byte is
// a char of its own (RuneError, size 1). Every stage that walks a string
// char by char (ByteLevel, BPE's words) uses it.
func DecodeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
