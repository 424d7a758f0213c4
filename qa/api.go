// Package qa holds the question-answering task itself as pure functions:
// cutting a (question, context) pair into model windows exactly as Hugging
// Face's QuestionAnsweringPipeline does, decoding spans from start/end logits,
// and merging the answers of one document's windows. It imports only the
// plain token values the tokenizer produces (package tokenizer/tokens, whose
// Span, Tokens and Template it names as its own) and does no I/O.
package qa

import "qa-shard/tokenizer/tokens"

// Span is a half-open [Start, End) range of Unicode code points in the
// original text (tokens.Span).
type Span = tokens.Span

// Tokens is one tokenized text without special tokens: ids, offsets and
// words (tokens.Tokens).
type Tokens = tokens.Tokens

// Settings are the QuestionAnsweringPipeline parameters that change answers.
type Settings struct {
	// MaxSeqLen is the model input length in tokens, specials included
	// (HF max_seq_len).
	MaxSeqLen int
	// DocStride is the overlap in tokens between consecutive windows (HF
	// doc_stride, the tokenizer's stride); it is not the step between them.
	DocStride int
	// MaxAnswerLen is the longest answer in tokens (HF max_answer_len).
	MaxAnswerLen int
	// TopK is the number of answers kept per (document, question).
	TopK int
	// HandleImpossible adds the empty "no answer" candidate.
	HandleImpossible bool
	// AlignToWords widens spans to whole pre-tokenizer words.
	AlignToWords bool
	// LegacyTopK decodes as transformers 4.53 and earlier: each window
	// proposes only TopK spans, so after spans outside the context are
	// dropped and equal answers merged fewer than TopK may remain. The
	// default is transformers 4.54 and later (pull request #39193): with
	// AlignToWords each window proposes 2*TopK+10 spans, and the merged
	// answers are cut to TopK only at the end.
	LegacyTopK bool
}

// Window is one model input: the tokenizer's pair template around the
// question and context[From:To], e.g. [CLS] question [SEP] context [SEP]
// for BERT or <s> question </s></s> context </s> for RoBERTa.
//
// IDs and TypeIDs of all windows cut from one (question, context) pair share
// two backing arrays and must be treated as read-only.
type Window struct {
	// Index is the 0-based position among the windows of one pair.
	Index int
	// IDs are the input ids, specials included, without padding.
	IDs []int32
	// TypeIDs come from the template (BERT: 0 for [CLS] question [SEP], 1
	// for the context and the final [SEP]).
	TypeIDs []int32
	// QuestionStart is the position of the first question token and
	// QuestionLen the number of question tokens.
	QuestionStart, QuestionLen int
	// ContextStart is the position of the first context token.
	ContextStart int
	// Specials is the number of special tokens the template added.
	Specials int
	// From and To delimit the context tokens in this window.
	From, To int
	// Question is the question the window was cut for (shared, not copied):
	// decoding needs its words and offsets when a literal [CLS] typed in
	// the question wins, a corner HF handles in its own way.
	Question Tokens
}

// Candidate is one answer span proposed by one window.
type Candidate struct {
	// Start and End are code-point offsets into the context.
	Start, End int32
	// Score is HF's per-window score P_start*P_end, in float32 as numpy
	// computes it.
	Score float32
	// Logit is the span's raw start_logit + end_logit (the model's
	// outputs, before masking and softmax), added in float64: exact, and
	// finite for any finite logits.
	Logit float64
}

// WindowResult is what decoding one window yields.
type WindowResult struct {
	// Candidates are in HF's order: score descending.
	Candidates []Candidate
	// NullScore is P_start[CLS]*P_end[CLS] before [CLS] is masked; only
	// used with HandleImpossible.
	NullScore float32
	// NullLogit is the first token's raw start_logit + end_logit: the
	// window's score for "no answer" (SQuAD 2.0's null score), added as
	// Candidate.Logit is.
	NullLogit float64
}

// Answer is one answer for a (document, question).
type Answer struct {
	Text string
	// Score is float64 because HF adds the float32 scores of equal answers
	// from different windows as Python floats.
	Score float64
	// Start and End are code-point offsets into the context.
	Start, End int
	// SpanLogit is the span's raw start_logit + end_logit, comparable
	// across documents (Score is normalised within each window): for an
	// answer merged from equal spans the largest of theirs, for the empty
	// answer NullLogit.
	SpanLogit float64
	// NullLogit is the smallest NullLogit of the document's windows, as
	// SQuAD 2.0's reference code takes the null score; the same for every
	// answer of one (document, question).
	NullLogit float64
}
