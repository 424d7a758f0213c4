package modeldir

import (
	"encoding/json"
	"fmt"
)

// vocabulary is what the added tokens are looked up in: the converted
// model's vocab.
type vocabulary struct {
	ids  map[string]int
	size int // one more than the largest id
}

func (v vocabulary) id(tok string) (int, bool) {
	id, ok := v.ids[tok]
	return id, ok
}

// parts are the components of the tokenizer.json a converter builds.
type parts struct {
	model, normalizer, preTokenizer, postProcessor any
	vocab                                          vocabulary
	// pre are the added tokens the converter itself adds (a SentencePiece
	// model's control and user-defined pieces), before the fast
	// tokenizer's own.
	pre []addedToken
}

// tokenizerJSON writes the converted tokenizer as tokenizer.json. Its added
// tokens are those PreTrainedTokenizerFast's constructor adds to a
// converted tokenizer: added_tokens_decoder's (or added_tokens.json's) by
// index, then each special token not yet added (roles in transformers'
// order, then additional_special_tokens). An added token the vocab holds keeps the
// vocab's id; the others get the next ids past the vocab, in that order.
// An added_tokens.json id that is not the one given is refused.
func tokenizerJSON(p parts, c *slowConfig, defaults map[string]addedToken) ([]byte, error) {
	var specials []addedToken
	for _, role := range roles {
		t, ok := c.specials[role]
		d, hasDefault := defaults[role]
		switch {
		case ok && t.Normalized == nil && hasDefault && !isObject(t):
			// A string from the files takes the class's flags (the slow
			// tokenizer wraps it in AddedToken the same way).
			d.Content = t.Content
			specials = append(specials, d)
		case ok:
			t.wrapped = true
			specials = append(specials, t)
		case hasDefault:
			specials = append(specials, d)
		}
	}
	specials = append(specials, c.additional...)
	specialSet := map[string]bool{}
	for _, t := range specials {
		specialSet[t.Content] = true
	}
	var list []addedToken
	seen := map[string]int{} // content -> index in list
	// add adds a token. A content already added keeps its place (its id);
	// replace says whether the new flags replace the old ones, as
	// tokenizers' add_tokens does for a token equal in content but not in
	// flags (added_tokens_decoder's entries); a special token whose content
	// is already added is skipped, as the fast tokenizer's constructor skips
	// it.
	add := func(t addedToken, replace bool) {
		i, dup := seen[t.Content]
		if dup && !replace {
			return
		}
		t.Special = t.Special || specialSet[t.Content]
		if t.Normalized == nil {
			// AddedToken's default: special tokens are not normalized.
			n := !t.Special
			t.Normalized = &n
		}
		if dup {
			list[i] = t
			return
		}
		seen[t.Content] = len(list)
		list = append(list, t)
	}
	// The converter's own tokens (a SentencePiece model's control and
	// user-defined pieces) are added as the model file marks them.
	for _, t := range p.pre {
		if _, dup := seen[t.Content]; !dup {
			seen[t.Content] = len(list)
			list = append(list, t)
		}
	}
	fromDecoder := map[string]bool{}
	for _, t := range c.decoder {
		add(t, true)
		fromDecoder[t.Content] = true
	}
	// A special token the class holds as an AddedToken (one with flags of
	// its own: the files' objects, the masks the classes wrap) is added
	// again over a converter's token of the same content, and its flags
	// win; one held as a string, or one added_tokens_decoder gave, is not.
	for _, t := range specials {
		add(t, t.wrapped && !fromDecoder[t.Content])
	}
	next := p.vocab.size
	var added []map[string]any
	for _, t := range list {
		id, ok := p.vocab.id(t.Content)
		if !ok {
			id = next
			next++
		}
		if t.from != "" && id != t.index {
			return nil, fmt.Errorf("%w: %s gives %q the id %d, but the tokenizer transformers builds from this folder gives it %d (%s): the model would be fed other ids than the tokenizer that wrote the file; save the tokenizer with transformers (tokenizer.save_pretrained) to write a tokenizer.json, or give the file the ids above",
				ErrInput, t.from, t.Content, t.index, id, idRule(ok, p.vocab.size))
		}
		added = append(added, map[string]any{"id": id, "content": t.Content, "single_word": t.SingleWord,
			"lstrip": t.Lstrip, "rstrip": t.Rstrip, "normalized": *t.Normalized, "special": t.Special})
	}
	raw, err := json.Marshal(map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer": p.normalizer, "pre_tokenizer": p.preTokenizer, "model": p.model,
		"post_processor": p.postProcessor, "decoder": nil,
	})
	if err != nil {
		return nil, fmt.Errorf("write the converted tokenizer.json: %w", err)
	}
	return raw, nil
}

// idRule says why a converted tokenizer gives an added token its id.
func idRule(inVocab bool, size int) string {
	if inVocab {
		return "its id in the vocabulary"
	}
	return fmt.Sprintf("added tokens take the ids past the %d-token vocabulary, in the order of their ids, without gaps", size)
}

// isObject says whether a token came as an object with flags (a plain
// string sets none of them).
func isObject(t addedToken) bool {
	return t.Normalized != nil || t.Lstrip || t.Rstrip || t.SingleWord || t.Special
}

// requireTokens checks that each special token the converted tokenizer
// frames or falls back on is in the vocabulary file (or an added token of
// tokenizer_config.json): without it the model would be fed an id it never
// learned.
func requireTokens(vocabFile string, v vocabulary, c *slowConfig, tokens map[string]string) error {
	for _, role := range roles {
		tok, ok := tokens[role]
		if !ok || tok == "" {
			continue
		}
		if _, ok := v.id(tok); ok {
			continue
		}
		inDecoder := false
		for _, t := range c.decoder {
			inDecoder = inDecoder || t.Content == tok
		}
		if inDecoder {
			continue
		}
		from := "the default of " + c.class
		if _, set := c.specials[role]; set {
			from = "set in " + fmt.Sprint(c.files)
		}
		return fmt.Errorf("%w: %s has no %s %q (%s)", ErrInput, vocabFile, role, tok, from)
	}
	return nil
}

// template is a TemplateProcessing from transformers' template strings
// ("[CLS]:0 $A:0 [SEP]:0"), with the ids of its special tokens.
func template(single, pair []any, specials map[string]int) map[string]any {
	sp := map[string]any{}
	for tok, id := range specials {
		sp[tok] = map[string]any{"id": tok, "ids": []int{id}, "tokens": []string{tok}}
	}
	return map[string]any{"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": sp}
}

func seq(id string, typeID int) any {
	return map[string]any{"Sequence": map[string]any{"id": id, "type_id": typeID}}
}

func special(tok string, typeID int) any {
	return map[string]any{"SpecialToken": map[string]any{"id": tok, "type_id": typeID}}
}
