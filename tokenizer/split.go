package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

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
