package qa

import (
	"math"
	"testing"
)

// answerOf decodes one window of ctxSpec with the given context-token
// logits (0 elsewhere) and merges the result as the pipeline does.
func answerOf(t *testing.T, s Settings, start, end map[int]float32) []Answer {
	t.Helper()
	text, ctx := toks(ctxSpec)
	_, q := toks("where")
	w := window(t, q, ctx, s)
	st, en := logits(w, 0, start, end)
	res, err := DecodeWindow(w, ctx, testSpecial, st, en, s)
	if err != nil {
		t.Fatal(err)
	}
	return Answers(text, []WindowResult{res}, s)
}

// transformers 4.54 (pull request #39193) asks each window for 2*top_k+10
// spans when aligning to words, merges equal answers, then keeps top_k.
// Two spans starting in different tokens of "Par|is" and ending in "is"
// are the same answer once aligned to words.

// TestTopKOverFetchChangesTheBestAnswer: each "Paris" span scores below
// "Eiffel tower", their sum above it. Up to 4.53 only the best span was
// taken (top_k = 1), so the answer was "Eiffel tower"; since 4.54 the two
// "Paris" spans merge and win.
func TestTopKOverFetchChangesTheBestAnswer(t *testing.T) {
	start := map[int]float32{1: 9, 6: 8.6, 7: 8.6} // Eif, Par, is
	end := map[int]float32{3: 10, 7: 9.8}          // tower, is

	old := settings(func(s *Settings) { s.LegacyTopK = true })
	got := answerOf(t, old, start, end)
	if len(got) != 1 || got[0].Text != "Eiffel tower" {
		t.Fatalf("transformers 4.53: %+v, want Eiffel tower", got)
	}
	eiffel := got[0].Score

	got = answerOf(t, DefaultSettings(), start, end)
	if len(got) != 1 || got[0].Text != "Paris" || got[0].Start != 23 || got[0].End != 28 {
		t.Fatalf("transformers 4.54: %+v, want Paris [23,28)", got)
	}
	if got[0].Score <= eiffel {
		t.Errorf("Paris scores %v, not above Eiffel tower's %v", got[0].Score, eiffel)
	}
	// The merged score is the sum of the two spans' float32 scores.
	text, ctx := toks(ctxSpec)
	_, q := toks("where")
	w := window(t, q, ctx, DefaultSettings())
	st, en := logits(w, 0, start, end)
	res, _ := DecodeWindow(w, ctx, testSpecial, st, en, DefaultSettings())
	var sum float64
	for _, c := range res.Candidates {
		if text[c.Start:c.End] == "Paris" {
			sum += float64(c.Score)
		}
	}
	if math.Abs(got[0].Score-sum) > 1e-12 {
		t.Errorf("Paris scores %v, want the sum of its spans %v", got[0].Score, sum)
	}
}

// TestTopKOverFetchReturnsKAnswers is the bug #39193 fixed: the two best
// spans are both "Paris", so with top_k = 2 transformers 4.53 returned one
// answer; 4.54 returns two.
func TestTopKOverFetchReturnsKAnswers(t *testing.T) {
	start := map[int]float32{1: 8, 6: 9, 7: 9}
	end := map[int]float32{3: 9, 7: 10}
	k2 := func(legacy bool) Settings {
		return settings(func(s *Settings) { s.TopK, s.LegacyTopK = 2, legacy })
	}
	if got := answerOf(t, k2(true), start, end); len(got) != 1 || got[0].Text != "Paris" {
		t.Fatalf("transformers 4.53: %+v, want Paris alone", got)
	}
	got := answerOf(t, k2(false), start, end)
	if len(got) != 2 || got[0].Text != "Paris" || got[1].Text == "Paris" {
		t.Fatalf("transformers 4.54: %+v, want Paris and another answer", got)
	}
	// Without word alignment the spans stay distinct and nothing is over-fetched.
	plain := k2(false)
	plain.AlignToWords = false
	if got := answerOf(t, plain, start, end); len(got) != 2 || got[0].Text != "Paris" || got[1].Text != "is" {
		t.Fatalf("no alignment: %+v, want Paris then is", got)
	}
}
