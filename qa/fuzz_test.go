package qa

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// fuzzInput turns fuzz bytes into a (question, context) pair, settings and
// a stream of logits.
type fuzzInput struct {
	data []byte
}

func (f *fuzzInput) byte() byte {
	if len(f.data) == 0 {
		return 0
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b
}

func (f *fuzzInput) float() float32 {
	if len(f.data) < 4 {
		return float32(f.byte()) - 128
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(f.data))
	f.data = f.data[4:]
	return v
}

// tokens makes n tokens with monotone words and offsets, some ids set to
// [CLS] or [SEP], and returns them with the length of their text.
func (f *fuzzInput) tokens(n int) (Tokens, int32) {
	var t Tokens
	pos, word := int32(0), int32(-1)
	for range n {
		b := f.byte()
		if b%3 != 0 || word < 0 {
			word++
			pos++ // a space
		}
		id := int32(1000) + int32(b)
		switch b % 17 {
		case 1:
			id = testSpecial.CLS
		case 2:
			id = testSpecial.After[0]
		}
		w := word
		if b%29 == 5 {
			w = -1
		}
		l := int32(b%4) + 1
		t.IDs = append(t.IDs, id)
		t.Offsets = append(t.Offsets, Span{Start: pos, End: pos + l})
		t.Words = append(t.Words, w)
		pos += l
	}
	return t, pos
}

func FuzzDecodeWindow(f *testing.F) {
	f.Add([]byte{3, 40, 16, 4, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	f.Add([]byte{1, 200, 1, 15, 2, 2, 0, 17, 34, 51, 68, 85, 0, 0, 128, 63})
	f.Add([]byte{10, 90, 30, 2, 5, 1, 1, 255, 255, 255, 127, 0, 0, 192, 127})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		q, qText := in.tokens(int(in.byte() % 12))
		ctx, ctxText := in.tokens(int(in.byte()))
		s := Settings{
			MaxSeqLen:        int(in.byte()%64) + 1,
			DocStride:        int(in.byte() % 32),
			MaxAnswerLen:     int(in.byte()%20) + 1,
			TopK:             int(in.byte()%5) + 1,
			HandleImpossible: in.byte()%2 == 0,
			AlignToWords:     in.byte()%2 == 0,
		}
		ws, err := Windows(q, ctx, testSpecial, s)
		if err != nil {
			for _, known := range []error{ErrBadSettings, ErrEmptyQuestion, ErrEmptyContext, ErrQuestionTooLong, ErrStrideTooLarge} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("unexpected error: %v", err)
		}
		checkWindows(t, ws, ctx.Len(), s)
		bound := max(qText, ctxText)
		var results []WindowResult
		for _, w := range ws {
			start := make([]float32, w.Len())
			end := make([]float32, w.Len())
			for i := range start {
				start[i], end[i] = in.float(), in.float()
			}
			res, err := DecodeWindow(w, ctx, testSpecial, start, end, s)
			if err != nil {
				t.Fatalf("window %d: %v", w.Index, err)
			}
			if len(res.Candidates) > s.spansPerWindow() {
				t.Fatalf("window %d: %d candidates for top k %d", w.Index, len(res.Candidates), s.TopK)
			}
			// transformers 4.53's candidates are the first of 4.54's.
			old := s
			old.LegacyTopK = true
			prev, err := DecodeWindow(w, ctx, testSpecial, start, end, old)
			if err != nil {
				t.Fatalf("window %d, legacy top k: %v", w.Index, err)
			}
			if len(prev.Candidates) > s.TopK || len(prev.Candidates) > len(res.Candidates) ||
				!slices.EqualFunc(prev.Candidates, res.Candidates[:len(prev.Candidates)], sameCandidate) {
				t.Fatalf("window %d: legacy candidates %v are not the first of %v", w.Index, prev.Candidates, res.Candidates)
			}
			for _, c := range res.Candidates {
				if c.Start < 0 || c.End < 0 || c.Start > bound || c.End > bound {
					t.Fatalf("window %d: candidate %+v out of [0,%d]", w.Index, c, bound)
				}
			}
			results = append(results, res)
		}
		for _, a := range Answers(string(make([]rune, ctxText)), results, s) {
			if len([]rune(a.Text)) > int(ctxText) {
				t.Fatalf("answer %q longer than the context", a.Text)
			}
		}
	})
}

// sameCandidate is equality with NaN scores equal to each other.
func sameCandidate(a, b Candidate) bool {
	return a.Start == b.Start && a.End == b.End && (a.Score == b.Score || (a.Score != a.Score && b.Score != b.Score))
}

func checkWindows(t *testing.T, ws []Window, n int, s Settings) {
	t.Helper()
	if ws[0].From != 0 || ws[len(ws)-1].To != n {
		t.Fatalf("windows cover [%d,%d), want [0,%d)", ws[0].From, ws[len(ws)-1].To, n)
	}
	for i, w := range ws {
		if w.Len() > s.MaxSeqLen {
			t.Fatalf("window %d has %d tokens, max %d", i, w.Len(), s.MaxSeqLen)
		}
		if len(w.IDs) != w.Len() || len(w.TypeIDs) != w.Len() {
			t.Fatalf("window %d: %d ids, %d type ids, Len %d", i, len(w.IDs), len(w.TypeIDs), w.Len())
		}
		if i > 0 && ws[i-1].To-w.From != s.DocStride {
			t.Fatalf("windows %d and %d overlap by %d tokens, want %d", i-1, i, ws[i-1].To-w.From, s.DocStride)
		}
	}
}
