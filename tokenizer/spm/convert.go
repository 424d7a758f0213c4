package spm

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// NumberComma is transformers' check_number_comma: false for a piece of
// two or more chars ending in a digit (Python's str.isdigit) and a comma,
// whose score ALBERT's converter lowers by 100 so that "1,000" is not cut
// after the comma.
func NumberComma(piece string) bool {
	if utf8.RuneCountInString(piece) < 2 || piece[len(piece)-1] != ',' {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(piece[:len(piece)-1])
	return !pyIsDigit(r)
}

// pyIsDigit is Python's str.isdigit for one char: Numeric_Type Decimal or
// Digit (Nd, plus superscripts, subscripts, circled and similar digits).
func pyIsDigit(r rune) bool {
	if unicode.IsDigit(r) {
		return true
	}
	switch {
	case r == 0xB2 || r == 0xB3 || r == 0xB9, r == 0x2070, r >= 0x2074 && r <= 0x2079,
		r >= 0x2080 && r <= 0x2089, r >= 0x2460 && r <= 0x2468, r >= 0x2474 && r <= 0x247C,
		r >= 0x2488 && r <= 0x2490, r == 0x24EA, r >= 0x24F5 && r <= 0x24FD, r == 0x24FF,
		r >= 0x2776 && r <= 0x277E, r >= 0x2780 && r <= 0x2788, r >= 0x278A && r <= 0x2792:
		return true
	}
	return false
}

// Scored is one entry of a converter's vocabulary: a piece and its score
// (float64: a converter's adjustments, such as ALBERT's -100, are made in
// Python floats).
type Scored struct {
	Piece string
	Score float64
}

// Merges derives the BPE merges of a SentencePiece BPE model as
// transformers' SentencePieceExtractor.extract(vocab_scores) does: for each
// entry of the converter's vocabulary (a piece listed twice keeps its first
// place and its last score), every split of it into two pieces of the
// model's own vocabulary, ordered by the two halves' ids; then all of them
// ordered by score, highest first, then by the halves' lengths in code
// points, longest first, ties in that order (Python's stable reverse sort).
func Merges(m *Model, vocab []Scored) [][2]string {
	ids := make(map[string]int, len(m.Pieces))
	for i, p := range m.Pieces {
		ids[p.Piece] = i
	}
	// dict(vocab_scores): first position, last value.
	order := make([]string, 0, len(vocab))
	score := make(map[string]float64, len(vocab))
	for _, e := range vocab {
		if _, ok := score[e.Piece]; !ok {
			order = append(order, e.Piece)
		}
		score[e.Piece] = e.Score
	}
	type merge struct {
		l, r   string
		nl, nr int // lengths in code points
		score  float64
	}
	var all []merge
	var local []merge
	for _, piece := range order {
		local = local[:0]
		n := 0
		for i := range piece {
			if i == 0 {
				continue
			}
			n++
			l, r := piece[:i], piece[i:]
			_, okL := ids[l]
			_, okR := ids[r]
			if okL && okR {
				local = append(local, merge{l: l, r: r, nl: n, nr: utf8.RuneCountInString(r), score: score[piece]})
			}
		}
		sort.SliceStable(local, func(a, b int) bool {
			if ia, ib := ids[local[a].l], ids[local[b].l]; ia != ib {
				return ia < ib
			}
			return ids[local[a].r] < ids[local[b].r]
		})
		all = append(all, local...)
	}
	sort.SliceStable(all, func(a, b int) bool {
		x, y := all[a], all[b]
		if x.score != y.score {
			return x.score > y.score
		}
		if x.nl != y.nl {
			return x.nl > y.nl
		}
		return x.nr > y.nr
	})
	out := make([][2]string, len(all))
	for i, mg := range all {
		out[i] = [2]string{mg.l, mg.r}
	}
	return out
}
