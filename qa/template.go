package qa

import "qa-shard/tokenizer/tokens"

// Template is the tokenizer's pair template (tokens.Template): the special
// tokens and type ids around a (question, context) pair.
type Template = tokens.Template

// BertTemplate is [CLS] A [SEP] B:1 [SEP]:1, BERT's pair template.
func BertTemplate(cls, sep int32) Template { return tokens.BertTemplate(cls, sep) }

// layOut lays out one window: template t around question q and context
// ids ctx, appended to ids and types; later is true for windows after the
// first.
func layOut(t Template, q, ctx []int32, later bool, ids, types []int32) ([]int32, []int32) {
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
