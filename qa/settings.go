package qa

import (
	"errors"
	"fmt"

	"qa-shard/tokenizer/tokens"
)

// Sentinel errors; callers match them with errors.Is.
var (
	ErrBadSettings     = errors.New("invalid qa settings")
	ErrEmptyQuestion   = errors.New("question has no tokens")
	ErrEmptyContext    = errors.New("context has no tokens")
	ErrQuestionTooLong = errors.New("question leaves no room for the context")
	ErrStrideTooLarge  = errors.New("doc stride is not smaller than the context budget")
	ErrBadTokens       = tokens.ErrBadTokens // the same error, so errors.Is matches either
	ErrBadLogits       = errors.New("logits do not match the window")
)

// DefaultSettings are the pipeline's defaults for a model whose
// model_max_length is at least 384.
func DefaultSettings() Settings {
	return Settings{
		MaxSeqLen:    384,
		DocStride:    128,
		MaxAnswerLen: 15,
		TopK:         1,
		AlignToWords: true,
	}
}

// Validate rejects settings HF itself rejects, or that could never yield a
// window. Whether the stride fits depends on the question's length, so
// Windows checks that again per question.
func (s Settings) Validate() error {
	switch {
	case s.MaxSeqLen < 5:
		// [CLS] q [SEP] c [SEP] needs at least one token of each text.
		return fmt.Errorf("%w: max seq len %d is below 5 ([CLS], one question token, [SEP], one context token, [SEP])",
			ErrBadSettings, s.MaxSeqLen)
	case s.DocStride < 0:
		return fmt.Errorf("%w: doc stride %d is negative", ErrBadSettings, s.DocStride)
	case s.DocStride > s.MaxSeqLen-2:
		// The tokenizers library refuses a stride above max_length minus the
		// two specials of a single sequence, whatever the texts.
		return fmt.Errorf("%w: doc stride %d must be smaller than max seq len %d minus the special tokens",
			ErrBadSettings, s.DocStride, s.MaxSeqLen)
	case s.MaxAnswerLen < 1:
		return fmt.Errorf("%w: max answer len %d must be at least 1", ErrBadSettings, s.MaxAnswerLen)
	case s.TopK < 1:
		return fmt.Errorf("%w: top k %d must be at least 1", ErrBadSettings, s.TopK)
	}
	return nil
}

// spansPerWindow is how many spans HF's postprocess asks decode_spans for
// per window: pre_topk = top_k * 2 + 10 when aligning to words (some spans
// then collapse into one answer), top_k otherwise; top_k before 4.54.
func (s Settings) spansPerWindow() int {
	if s.AlignToWords && !s.LegacyTopK {
		return 2*s.TopK + 10
	}
	return s.TopK
}
