package qa

import "fmt"

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

// window lays out one window: the template around question q and context
// ids ctx, appended to ids and types; later is true for windows after the
// first.
func (t Template) window(q, ctx []int32, later bool, ids, types []int32) ([]int32, []int32) {
	ctxType := t.ContextType
	if later {
		ctxType = t.LaterContextType
	}
	put := func(tok []int32, typ int32, typs []int32) {
		ids = append(ids, tok...)
		for i := range tok {
			if typs != nil {
				typ = typs[i]
			}
			types = append(types, typ)
		}
	}
	put(t.Before, 0, t.BeforeTypes)
	put(q, t.QuestionType, nil)
	put(t.Between, 0, t.BetweenTypes)
	put(ctx, ctxType, nil)
	put(t.After, 0, t.AfterTypes)
	return ids, types
}
