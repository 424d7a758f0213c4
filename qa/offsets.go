package qa

// charSpan maps window positions i <= j to code-point offsets in the
// context, as HF's get_indices does on the window's own encoding.
//
// With alignToWords: the start of the word holding i and the end of the
// word holding j, where a word's characters are looked up among this
// window's context tokens only (enc.word_to_chars(word, sequence_index=1)).
// If either lookup fails (a special token has no word; a word is not in
// this window's context) HF falls back to the raw token offsets for both
// ends, not just the failing one.
func charSpan(w Window, ctx Tokens, i, j int, alignToWords bool) (int32, int32) {
	if alignToWords {
		if a, ok := wordChars(w, ctx, i); ok {
			if b, ok := wordChars(w, ctx, j); ok {
				return a.Start, b.End
			}
		}
	}
	return tokenOffset(w, ctx, i).Start, tokenOffset(w, ctx, j).End
}

// tokenAt returns the word id and offsets of window position p, and
// whether the position holds a real (non-special) token.
func tokenAt(w Window, ctx Tokens, p int) (word int32, off Span, ok bool) {
	seq, word, off := w.Position(ctx, p)
	switch seq {
	case 0:
		// A question token: its offsets point into the QUESTION. Only a
		// literal cls token typed in the question can get here, and HF then
		// slices the context with question offsets; so do we.
		return word, off, true
	case 1:
		return word, off, true
	}
	return -1, Span{}, false // specials have offsets (0, 0) and no word
}

// Position describes window position p as HF's encoding of the window
// does: its sequence id (0 question, 1 context, -1 a special token), word
// id (-1 for none) and code-point offsets into the question or the
// context. The first context token of a window gets its window-first
// offsets (Tokens.FirstOffsets), as tokenizers trims each window's offsets
// on its own.
func (w Window) Position(ctx Tokens, p int) (seq int8, word int32, off Span) {
	qs, cs := w.QuestionStart, w.ContextStart
	switch {
	case p >= qs && p < qs+w.QuestionLen:
		t := p - qs
		return 0, w.Question.Words[t], w.Question.Offsets[t]
	case p >= cs && p < cs+w.To-w.From:
		c := w.From + p - cs
		if c == w.From && ctx.FirstOffsets != nil {
			return 1, ctx.Words[c], ctx.FirstOffsets[c]
		}
		return 1, ctx.Words[c], ctx.Offsets[c]
	}
	return -1, -1, Span{}
}

func tokenOffset(w Window, ctx Tokens, p int) Span {
	_, off, _ := tokenAt(w, ctx, p)
	return off
}

// wordChars is enc.word_to_chars(enc.token_to_word(p), sequence_index=1).
//
// token_to_word gives a question token its word id within the question, so
// a literal [CLS] in the question looks up that id among the context's
// words: it succeeds when this window's context holds a word with that id
// (then the answer starts in an unrelated context word) and fails
// otherwise. The scan copies tokenizers' word_to_tokens: tokens without a
// word are skipped and the scan stops at the first larger word id.
func wordChars(w Window, ctx Tokens, p int) (Span, bool) {
	word, _, ok := tokenAt(w, ctx, p)
	if !ok || word < 0 {
		return Span{}, false
	}
	first, last := -1, -1
	for c := w.From; c < w.To; c++ {
		cw := ctx.Words[c]
		if cw < 0 {
			continue
		}
		if cw > word {
			break
		}
		if cw == word {
			if first < 0 {
				first = c
			}
			last = c
		}
	}
	if first < 0 {
		return Span{}, false
	}
	_, _, a := w.Position(ctx, w.ContextStart+first-w.From)
	_, _, b := w.Position(ctx, w.ContextStart+last-w.From)
	return Span{Start: a.Start, End: b.End}, true
}
