package tokenizer

import (
	"fmt"

	sugar "github.com/sugarme/tokenizer"
)

// setSpecials finds [CLS], [SEP] and [PAD] ids the way the exported model
// uses them: [CLS]/[SEP] from the post-processor that frames a pair as
// "[CLS] A [SEP] B [SEP]", [PAD] from the padding setting, the added tokens
// or the vocab. The question-answering windows rely on that exact frame, so
// any other shape is an error here rather than wrong windows later.
func (t *Tokenizer) setSpecials(cfg sugar.Config) error {
	var err error
	switch pp := cfg.PostProcessor; typeOf(pp) {
	case `"TemplateProcessing"`:
		t.cls, t.sep, err = templateSpecials(pp)
	case `"BertProcessing"`:
		t.cls, err = bertProcessingToken(pp, "cls")
		if err == nil {
			t.sep, err = bertProcessingToken(pp, "sep")
		}
	default:
		err = fmt.Errorf("post_processor %s is not supported: the [CLS]/[SEP] ids come from a TemplateProcessing or BertProcessing post_processor", typeOf(pp))
	}
	if err != nil {
		return err
	}
	if id, ok := cfg.Padding["pad_id"].(float64); ok {
		t.pad = int32(id)
		return nil
	}
	for _, a := range t.added {
		if a.text == "[PAD]" {
			t.pad = a.id
			return nil
		}
	}
	if id, ok := t.wp.initial["[PAD]"]; ok {
		t.pad = id
		return nil
	}
	return fmt.Errorf("no [PAD] token: neither padding.pad_id, an added token nor a vocab entry [PAD]")
}

func bertProcessingToken(pp map[string]any, key string) (int32, error) {
	pair, ok := pp[key].([]any)
	if !ok || len(pair) != 2 {
		return 0, fmt.Errorf("BertProcessing post_processor: %s is %v, want [token, id]", key, pp[key])
	}
	id, ok := pair[1].(float64)
	if !ok {
		return 0, fmt.Errorf("BertProcessing post_processor: %s id is %v, want a number", key, pair[1])
	}
	return int32(id), nil
}

// templateSpecials reads the pair template, which must be
// SpecialToken(cls) A SpecialToken(sep) B SpecialToken(sep).
func templateSpecials(pp map[string]any) (cls, sep int32, err error) {
	pair, _ := pp["pair"].([]any)
	var shape []string
	var names []string
	for _, p := range pair {
		m, _ := p.(map[string]any)
		if s, ok := m["SpecialToken"].(map[string]any); ok {
			name, _ := s["id"].(string)
			shape = append(shape, "special")
			names = append(names, name)
		} else if s, ok := m["Sequence"].(map[string]any); ok {
			name, _ := s["id"].(string)
			shape = append(shape, name)
		} else {
			shape = append(shape, "?")
		}
	}
	want := []string{"special", "A", "special", "B", "special"}
	if fmt.Sprint(shape) != fmt.Sprint(want) || names[1] != names[2] {
		return 0, 0, fmt.Errorf("TemplateProcessing pair template is %v, want [CLS] A [SEP] B [SEP]", shape)
	}
	specials, _ := pp["special_tokens"].(map[string]any)
	lookup := func(name string) (int32, error) {
		s, _ := specials[name].(map[string]any)
		ids, _ := s["ids"].([]any)
		if len(ids) != 1 {
			return 0, fmt.Errorf("TemplateProcessing special token %q has ids %v, want exactly one", name, s["ids"])
		}
		id, ok := ids[0].(float64)
		if !ok {
			return 0, fmt.Errorf("TemplateProcessing special token %q id %v is not a number", name, ids[0])
		}
		return int32(id), nil
	}
	if cls, err = lookup(names[0]); err != nil {
		return 0, 0, err
	}
	sep, err = lookup(names[1])
	return cls, sep, err
}
