package qa

import (
	"errors"
	"math"
	"testing"
)

// The context of the decode tests, with its token indices:
// The(0) Eif(1)fel(2) tower(3) is(4) in(5) Par(6)is(7) France(8) .(9)
const ctxSpec = "The Eif|fel tower is in Par|is France ."

type wantCand struct {
	start, end int32
	score      float64 // -1: not checked
}

func TestDecodeWindow(t *testing.T) {
	e := math.Exp
	// With base logits 0, one context token at x and the others (9 context
	// tokens and [CLS]) at 0, that token's probability is p(x).
	p := func(x float64) float64 { return e(x) / (e(x) + 10) }
	tests := []struct {
		name       string
		mut        func(*Settings)
		question   string
		clsAt      int // question token replaced by a literal [CLS]; -1: none
		win        int // which window to decode
		base       float32
		cls        float32 // logit of [CLS] at position 0, if not 0
		start, end map[int]float32
		want       []wantCand
		wantNull   float64
	}{
		{name: "clear answer, aligned to the word", clsAt: -1,
			start: map[int]float32{6: 10}, end: map[int]float32{7: 10},
			want: []wantCand{{23, 28, p(10) * p(10)}}},
		{name: "subword start widens to its word", clsAt: -1,
			start: map[int]float32{2: 10}, end: map[int]float32{3: 10},
			want: []wantCand{{4, 16, p(10) * p(10)}}},
		{name: "subword start without alignment", clsAt: -1, mut: func(s *Settings) { s.AlignToWords = false },
			start: map[int]float32{2: 10}, end: map[int]float32{3: 10},
			want: []wantCand{{7, 16, p(10) * p(10)}}},
		{name: "subword end widens to its word", clsAt: -1,
			start: map[int]float32{6: 10}, end: map[int]float32{6: 10},
			want: []wantCand{{23, 28, p(10) * p(10)}}},
		{name: "subword end without alignment", clsAt: -1, mut: func(s *Settings) { s.AlignToWords = false },
			start: map[int]float32{6: 10}, end: map[int]float32{6: 10},
			want: []wantCand{{23, 26, p(10) * p(10)}}},
		{name: "ties take the smallest start, then the smallest end", clsAt: -1,
			start: map[int]float32{1: 5, 4: 5}, end: map[int]float32{4: 5, 6: 5},
			want: []wantCand{{4, 19, -1}}},
		{name: "a span longer than max answer len is never chosen", clsAt: -1,
			mut:   func(s *Settings) { s.MaxAnswerLen = 3 },
			start: map[int]float32{0: 20}, end: map[int]float32{9: 10, 3: 5},
			want: []wantCand{{0, 3, -1}}}, // (The, The): first of the tied ends in reach
		{name: "the same logits with room for the long span", clsAt: -1,
			start: map[int]float32{0: 20}, end: map[int]float32{9: 10, 3: 5},
			want: []wantCand{{0, 37, -1}}},
		{name: "[CLS] takes all the mass: (0, 0) with score 0", clsAt: -1,
			mut: func(s *Settings) { s.HandleImpossible = true }, cls: 1000,
			want: []wantCand{{0, 0, 0}}, wantNull: 1},
		{name: "every logit at -10000: the best span starts in the question and is dropped", clsAt: -1,
			base: -10000, want: nil, wantNull: 1.0 / 256},
		{name: "top k in score order", clsAt: -1, mut: func(s *Settings) { s.TopK = 3 },
			start: map[int]float32{6: 10, 1: 8}, end: map[int]float32{7: 10, 3: 8},
			want: []wantCand{{23, 28, -1}, {4, 28, -1}, {4, 16, -1}}},
		{name: "top k: masked spans fill the top and are dropped", clsAt: -1, mut: func(s *Settings) { s.TopK = 3 },
			base: -10010, start: map[int]float32{4: -9990}, end: map[int]float32{4: -9990},
			want: []wantCand{{17, 19, -1}}},
		// "where is [CLS]": the literal [CLS] is question word 2; context
		// word 2 is "tower" [11,16), and the span ends in "The" [0,3).
		{name: "literal [CLS] in the question starts at the context word of the same index", clsAt: 2,
			start: map[int]float32{}, end: map[int]float32{0: 10},
			want: []wantCand{{11, 3, -1}}},
		{name: "word cut at the window's end keeps the window's part", clsAt: -1,
			mut: func(s *Settings) { s.MaxSeqLen, s.DocStride = 13, 3 },
			win: 0, start: map[int]float32{6: 10}, end: map[int]float32{6: 10},
			want: []wantCand{{23, 26, -1}}},
		{name: "word cut at the window's start keeps the window's part", clsAt: -1,
			mut: func(s *Settings) { s.MaxSeqLen, s.DocStride = 13, 5 },
			win: 1, start: map[int]float32{2: 10}, end: map[int]float32{3: 10},
			want: []wantCand{{7, 16, -1}}},
		// Window 2 holds context tokens 4..9, words 3..7: word 2 is not
		// there, so both ends fall back to raw offsets, the start being the
		// literal [CLS]'s offset in the question, [9,14).
		{name: "literal [CLS] in the question, its word id absent from the window: question offsets", clsAt: 2,
			mut: func(s *Settings) { s.MaxSeqLen, s.DocStride = 13, 5 },
			win: 2, start: map[int]float32{}, end: map[int]float32{4: 10},
			want: []wantCand{{9, 19, -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ctx := toks(ctxSpec)
			qs := tt.question
			if qs == "" {
				qs = "where is [CLS]"
			}
			_, q := toks(qs)
			if tt.clsAt >= 0 {
				q.IDs[tt.clsAt] = testSpecial.CLS
			}
			s := settings(tt.mut)
			ws, err := Windows(q, ctx, testSpecial, s)
			if err != nil {
				t.Fatal(err)
			}
			w := ws[tt.win]
			start, end := logits(w, tt.base, tt.start, tt.end)
			if tt.cls != 0 {
				start[0], end[0] = tt.cls, tt.cls
			}
			if tt.clsAt >= 0 && len(tt.start) == 0 {
				start[1+tt.clsAt] = 10
			}
			// transformers 4.53 proposes exactly the listed spans; 4.54
			// (the default) asks for more spans per window, so the listed
			// ones come first and others may follow.
			for _, legacy := range []bool{true, false} {
				s.LegacyTopK = legacy
				res, err := DecodeWindow(w, ctx, testSpecial, start, end, s)
				if err != nil {
					t.Fatal(err)
				}
				n := len(res.Candidates)
				if (legacy && n != len(tt.want)) || n < len(tt.want) || n > s.spansPerWindow() {
					t.Fatalf("legacy %v: got %d candidates %+v, want %d %+v", legacy, n, res.Candidates, len(tt.want), tt.want)
				}
				checkCandidates(t, res, tt.want)
				if tt.wantNull != 0 && math.Abs(float64(res.NullScore)-tt.wantNull) > 1e-6 {
					t.Errorf("null score %v, want %v", res.NullScore, tt.wantNull)
				}
			}
		})
	}
}

// checkCandidates compares the first len(want) candidates with want and
// checks that all are in score order.
func checkCandidates(t *testing.T, res WindowResult, want []wantCand) {
	t.Helper()
	for i, c := range res.Candidates {
		if i > 0 && c.Score > res.Candidates[i-1].Score {
			t.Errorf("candidate %d scores above candidate %d", i, i-1)
		}
		if i >= len(want) {
			continue
		}
		wc := want[i]
		if c.Start != wc.start || c.End != wc.end {
			t.Errorf("candidate %d: span [%d,%d), want [%d,%d)", i, c.Start, c.End, wc.start, wc.end)
		}
		if wc.score >= 0 && math.Abs(float64(c.Score)-wc.score) > 1e-6 {
			t.Errorf("candidate %d: score %v, want %v", i, c.Score, wc.score)
		}
	}
}

func TestDecodeWindowRejectsWrongLogits(t *testing.T) {
	_, ctx := toks(ctxSpec)
	_, q := toks("where")
	w := window(t, q, ctx, DefaultSettings())
	_, err := DecodeWindow(w, ctx, testSpecial, make([]float32, w.Len()-1), make([]float32, w.Len()), DefaultSettings())
	if !errors.Is(err, ErrBadLogits) {
		t.Fatalf("got %v, want ErrBadLogits", err)
	}
}

func TestDecodeWindowRejectsForeignWindow(t *testing.T) {
	_, ctx := toks(ctxSpec)
	_, q := toks("where")
	w := window(t, q, ctx, DefaultSettings())
	_, short := toks("The Eiffel")
	start, end := make([]float32, w.Len()), make([]float32, w.Len())
	if _, err := DecodeWindow(w, short, testSpecial, start, end, DefaultSettings()); !errors.Is(err, ErrBadTokens) {
		t.Fatalf("window of a longer context: got %v, want ErrBadTokens", err)
	}
	w.Question = Tokens{}
	if _, err := DecodeWindow(w, ctx, testSpecial, start, end, DefaultSettings()); !errors.Is(err, ErrBadTokens) {
		t.Fatalf("window without its question: got %v, want ErrBadTokens", err)
	}
}

// TestDecodeWindowLogits: a candidate carries its span's raw start_logit +
// end_logit, and the window its first token's (SQuAD 2.0's null score),
// from the model's logits as given: not masked, not normalised, so two
// windows with the same probabilities but different logits tell apart.
func TestDecodeWindowLogits(t *testing.T) {
	_, ctx := toks(ctxSpec)
	_, q := toks("where is it")
	s := settings(func(s *Settings) { s.TopK = 2 })
	w := window(t, q, ctx, s)
	for _, shift := range []float32{0, 7.5} {
		start, end := logits(w, -2+shift, map[int]float32{6: 4 + shift, 1: 2 + shift}, map[int]float32{7: 3 + shift, 3: 1 + shift})
		start[0], end[0] = 1.25+shift, 0.5+shift
		start[2] = 50 // a question token: masked for the answer, yet not the null score's
		res, err := DecodeWindow(w, ctx, testSpecial, start, end, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1.75 + 2*float64(shift); res.NullLogit != want {
			t.Errorf("shift %v: null logit %v, want %v", shift, res.NullLogit, want)
		}
		want := []struct {
			start, end int32
			logit      float64
		}{{23, 28, 7}, {4, 28, 5}} // "Paris" (Par|is: 4+3), "Eiffel tower is in Paris" (2+3)
		for i, wc := range want {
			c := res.Candidates[i]
			if c.Start != wc.start || c.End != wc.end || c.Logit != wc.logit+2*float64(shift) {
				t.Errorf("shift %v: candidate %d [%d,%d) logit %v, want [%d,%d) logit %v", shift, i, c.Start, c.End, c.Logit, wc.start, wc.end, wc.logit+2*float64(shift))
			}
		}
	}
}
