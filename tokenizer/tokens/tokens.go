// Package tokens holds the plain values a tokenizer produces and the
// question-answering task consumes: a code-point span, one tokenized text
// and the pair template a post-processor puts around a (question, context)
// pair. It imports no other package of the project and does no I/O, so
// the tokenizer and package qa both build on it without importing each
// other.
package tokens

import (
	"errors"
	"fmt"
)

// ErrBadTokens: tokens or a template that do not fit together (package qa
// re-exports it as qa.ErrBadTokens). A plain sentinel, like package qa's:
// it reaches main only inside an error record or wrapped by the caller.
var ErrBadTokens = errors.New("inconsistent tokens")

// Span is a half-open [Start, End) range of Unicode code points in the
// original text, the unit Hugging Face's fast tokenizers report offsets in.
type Span struct {
	Start, End int32
}

// Tokens is one tokenized text (a question or a context) without special
// tokens: token ids, the code-point span of every token in the original text,
// and the index of the pre-tokenizer word each token came from (-1 for none).
type Tokens struct {
	IDs     []int32
	Offsets []Span
	Words   []int32
	// FirstOffsets, when not nil, holds each token's offsets for when the
	// token is the first of a window: HF's ByteLevel offset trimming with
	// add_prefix_space keeps a single leading space of an encoding's first
	// token, so that token's offsets depend on where the window begins.
	// Nil when they never do.
	FirstOffsets []Span
}

// Len is the number of tokens.
func (t Tokens) Len() int { return len(t.IDs) }

// Template is the frame a tokenizer's post-processor puts around a
// (question, context) pair, read from its pair template (HF
// TemplateProcessing, BertProcessing, RobertaProcessing): the special
// tokens before the question, between question and context and after the
// context, each with its type id, and the type ids of the two sequences.
// BERT, ALBERT and DeBERTa frame a pair as [CLS] A [SEP] B [SEP] (3 added
// tokens), RoBERTa and XLM-R as <s> A </s></s> B </s> (4).
type Template struct {
	Before, Between, After                []int32
	BeforeTypes, BetweenTypes, AfterTypes []int32
	QuestionType, ContextType             int32
	// LaterContextType is the context's type id in every window after the
	// first. tokenizers' TemplateProcessing sets the template's type ids on
	// the first window only, so the later ones keep the pair's own type id
	// for the context, 1, whatever the template says (XLM-R: 0 in the
	// first window, 1 after); BertProcessing and RobertaProcessing give
	// every window the same.
	LaterContextType int32
	// CLS is the tokenizer's cls_token_id: every window position holding
	// it stays unmasked (HF's p_mask), so it can carry the "no answer"
	// score. HasCLS is false for a tokenizer without a cls token.
	CLS    int32
	HasCLS bool
}

// BertTemplate is [CLS] A [SEP] B:1 [SEP]:1, BERT's pair template.
func BertTemplate(cls, sep int32) Template {
	return Template{
		Before: []int32{cls}, Between: []int32{sep}, After: []int32{sep},
		BeforeTypes: []int32{0}, BetweenTypes: []int32{0}, AfterTypes: []int32{1},
		QuestionType: 0, ContextType: 1, LaterContextType: 1, CLS: cls, HasCLS: true,
	}
}

// Added is the number of special tokens the template adds to a pair
// (tokenizers' num_special_tokens_to_add(is_pair=true)).
func (t Template) Added() int { return len(t.Before) + len(t.Between) + len(t.After) }

// Validate checks that every special token has a type id.
func (t Template) Validate() error {
	if len(t.Before) != len(t.BeforeTypes) || len(t.Between) != len(t.BetweenTypes) || len(t.After) != len(t.AfterTypes) {
		return fmt.Errorf("%w: template has %d/%d/%d special tokens but %d/%d/%d type ids",
			ErrBadTokens, len(t.Before), len(t.Between), len(t.After), len(t.BeforeTypes), len(t.BetweenTypes), len(t.AfterTypes))
	}
	return nil
}
