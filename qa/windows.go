package qa

import "fmt"

// Windows cuts a (question, context) pair into model windows exactly as a
// Hugging Face fast tokenizer does with truncation="only_second",
// max_length=MaxSeqLen, stride=DocStride and return_overflowing_tokens,
// then frames each with the tokenizer's pair template.
//
// The context budget is B = MaxSeqLen - len(q) - tpl.Added(). A context of
// n <= B tokens gives one window; a longer one gives windows starting at 0,
// B-S, 2(B-S), ... up to the first that reaches n (tokenizers'
// Encoding::truncate). As in tokenizers, S >= B is only an error when the
// context has to be cut.
func Windows(q, ctx Tokens, tpl Template, s Settings) ([]Window, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := tpl.Validate(); err != nil {
		return nil, err
	}
	if err := checkTokens(q); err != nil {
		return nil, fmt.Errorf("question: %w", err)
	}
	if err := checkTokens(ctx); err != nil {
		return nil, fmt.Errorf("context: %w", err)
	}
	if q.Len() == 0 {
		return nil, ErrEmptyQuestion
	}
	if ctx.Len() == 0 {
		return nil, ErrEmptyContext
	}
	added := tpl.Added()
	ranges, err := cut(q.Len(), ctx.Len(), added, s)
	if err != nil {
		return nil, err
	}

	// One allocation for the ids and type ids of all windows: the caller
	// pays a single copy of the context per question, not one per window.
	qn := q.Len()
	total := 0
	for _, r := range ranges {
		total += qn + added + r[1] - r[0]
	}
	ids := make([]int32, 0, total)
	types := make([]int32, 0, total)
	out := make([]Window, len(ranges))
	for i, r := range ranges {
		start := len(ids)
		ids, types = layOut(tpl, q.IDs, ctx.IDs[r[0]:r[1]], i > 0, ids, types)
		out[i] = Window{
			Index:         i,
			IDs:           ids[start:len(ids):len(ids)],
			TypeIDs:       types[start:len(types):len(types)],
			QuestionStart: len(tpl.Before),
			QuestionLen:   qn,
			ContextStart:  len(tpl.Before) + qn + len(tpl.Between),
			Specials:      added,
			From:          r[0],
			To:            r[1],
			Question:      q,
		}
	}
	return out, nil
}

// WindowCount is len(Windows(q, ctx, ...)) for a question of qLen tokens
// and a context of n tokens, computed without cutting anything, so that a
// caller can refuse a document before it pays for its windows. It is 0
// when Windows would return an error (the question does not fit, or the
// stride is too large). added is the template's special tokens for a pair.
func WindowCount(qLen, n, added int, s Settings) int {
	budget := s.MaxSeqLen - qLen - added
	switch {
	case n <= budget:
		return 1
	case budget <= 0, s.DocStride >= budget:
		return 0
	}
	step := budget - s.DocStride
	return 1 + (n-budget+step-1)/step
}

// QuestionFits returns ErrQuestionTooLong when a question of qLen tokens
// leaves no room for the context in a window (added: the template's
// special tokens for a pair): every document would be refused it.
func QuestionFits(qLen, added int, s Settings) error {
	if s.MaxSeqLen-qLen-added > 0 {
		return nil
	}
	return fmt.Errorf("%w: %d question tokens plus %d specials reach max seq len %d",
		ErrQuestionTooLong, qLen, added, s.MaxSeqLen)
}

// cut returns the [from, to) context token ranges of the windows.
func cut(qLen, n, added int, s Settings) ([][2]int, error) {
	budget := s.MaxSeqLen - qLen - added
	if n <= budget {
		return [][2]int{{0, n}}, nil
	}
	if budget <= 0 {
		return nil, fmt.Errorf("%w: %d question tokens plus %d specials reach max seq len %d",
			ErrQuestionTooLong, qLen, added, s.MaxSeqLen)
	}
	if s.DocStride >= budget {
		return nil, fmt.Errorf("%w: doc stride %d, budget %d tokens (max seq len %d - %d question tokens - %d specials)",
			ErrStrideTooLarge, s.DocStride, budget, s.MaxSeqLen, qLen, added)
	}
	step := budget - s.DocStride
	out := make([][2]int, 0, (n-s.DocStride+step-1)/step)
	for from := 0; ; from += step {
		to := min(from+budget, n)
		out = append(out, [2]int{from, to})
		if to == n {
			return out, nil
		}
	}
}

func checkTokens(t Tokens) error {
	if len(t.Offsets) != len(t.IDs) || len(t.Words) != len(t.IDs) || (t.FirstOffsets != nil && len(t.FirstOffsets) != len(t.IDs)) {
		return fmt.Errorf("%w: %d ids, %d offsets, %d words",
			ErrBadTokens, len(t.IDs), len(t.Offsets), len(t.Words))
	}
	return nil
}

// Len is the number of input tokens, specials included.
func (w Window) Len() int { return w.QuestionLen + w.Specials + w.To - w.From }
