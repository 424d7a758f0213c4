package qa

import (
	"fmt"
	"slices"
)

// DecodeWindow turns one window's start and end logits into answer
// candidates as Hugging Face's question-answering pipeline selects and
// decodes spans (transformers 4.x select_starts_ends, decode_spans and
// get_indices, as of 4.54; see Settings.LegacyTopK for earlier versions),
// for a fast tokenizer with the question first.
//
// start and end must hold exactly w.Len() logits (padding stripped); ctx is
// the full context the window was cut from.
func DecodeWindow(w Window, ctx Tokens, tpl Template, start, end []float32, s Settings) (WindowResult, error) {
	if err := s.Validate(); err != nil {
		return WindowResult{}, err
	}
	if err := checkWindow(w, ctx); err != nil {
		return WindowResult{}, err
	}
	n := w.Len()
	if len(start) != n || len(end) != n {
		return WindowResult{}, fmt.Errorf("%w: window %d has %d tokens, got %d start and %d end logits",
			ErrBadLogits, w.Index, n, len(start), len(end))
	}
	allowed := allowedTokens(w, tpl)

	ps := make([]float32, 2*n)
	pe := ps[n:]
	ps = ps[:n]
	masked := make([]float32, n)
	for i, ok := range allowed {
		masked[i] = maskIf(ok, start[i])
	}
	softmax32(ps, masked)
	for i, ok := range allowed {
		masked[i] = maskIf(ok, end[i])
	}
	softmax32(pe, masked)

	res := WindowResult{NullScore: ps[0] * pe[0], NullLogit: float64(start[0]) + float64(end[0])}
	ps[0], pe[0] = 0, 0

	var spans []span
	if k := s.spansPerWindow(); k == 1 {
		spans = []span{argmaxSpan(ps, pe, s.MaxAnswerLen)}
	} else {
		spans = topSpans(ps, pe, s.MaxAnswerLen, k)
	}

	// HF filters with np.isin(starts, undesired_tokens.nonzero()): the
	// nonzero() of a (1, n) mask is a tuple whose first array holds row
	// indices, all 0, so position 0 passes whenever anything is allowed.
	anyAllowed := slices.Contains(allowed, true)
	pass := func(p int) bool { return allowed[p] || (p == 0 && anyAllowed) }
	for _, c := range spans {
		if !pass(c.i) || !pass(c.j) {
			continue
		}
		a, b := charSpan(w, ctx, c.i, c.j, s.AlignToWords)
		res.Candidates = append(res.Candidates, Candidate{Start: a, End: b, Score: c.score, Logit: float64(start[c.i]) + float64(end[c.j])})
	}
	return res, nil
}

// checkWindow rejects a window that does not fit ctx or its own question,
// which would otherwise make decoding index out of range.
func checkWindow(w Window, ctx Tokens) error {
	if err := checkTokens(ctx); err != nil {
		return fmt.Errorf("window %d: context: %w", w.Index, err)
	}
	if err := checkTokens(w.Question); err != nil {
		return fmt.Errorf("window %d: question: %w", w.Index, err)
	}
	if len(w.IDs) != w.Len() || w.Question.Len() != w.QuestionLen ||
		w.From < 0 || w.From > w.To || w.To > ctx.Len() ||
		w.QuestionStart < 0 || w.QuestionStart+w.QuestionLen > w.ContextStart || w.ContextStart+w.To-w.From > w.Len() {
		return fmt.Errorf("%w: window %d has %d ids, %d of %d question tokens, context [%d,%d) of %d tokens",
			ErrBadTokens, w.Index, len(w.IDs), w.Question.Len(), w.QuestionLen, w.From, w.To, ctx.Len())
	}
	return nil
}

// allowedTokens is HF's (1 - p_mask) & attention_mask: context tokens
// (sequence id 1), and every position holding the cls token id, even one
// typed inside the question (p_mask[input_ids == cls_token_id] = 0).
func allowedTokens(w Window, tpl Template) []bool {
	allowed := make([]bool, w.Len())
	cs := w.ContextStart
	for i := range allowed {
		allowed[i] = (i >= cs && i < cs+w.To-w.From) || (tpl.HasCLS && w.IDs[i] == tpl.CLS)
	}
	return allowed
}

func maskIf(ok bool, v float32) float32 {
	if ok {
		return v
	}
	return maskedLogit
}
