package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"

	sugar "github.com/sugarme/tokenizer"
)

const supported = "qa-shard supports WordPiece models with a BertNormalizer (or none) and a BertPreTokenizer, i.e. BERT/DistilBERT-style exports"

// parseConfig decodes tokenizer.json with sugarme's Config type (its generic
// mirror of the file) and checks that it describes a tokenizer this package
// reproduces exactly; anything else is refused rather than approximated.
func parseConfig(raw []byte) (*Tokenizer, error) {
	var cfg sugar.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	t := &Tokenizer{}
	if err := t.setModel(cfg.Model); err != nil {
		return nil, err
	}
	norm, err := parseNormalizer(cfg.Normalizer)
	if err != nil {
		return nil, err
	}
	t.chars = newCharTable(norm)
	if typ := typeOf(cfg.PreTokenizer); typ != `"BertPreTokenizer"` {
		return nil, fmt.Errorf("pre_tokenizer %s is not supported; %s", typ, supported)
	}
	if err := t.setAdded(cfg.AddedTokens); err != nil {
		return nil, err
	}
	if err := t.setSpecials(cfg); err != nil {
		return nil, err
	}
	return t, nil
}

func typeOf(m map[string]any) string {
	if m == nil {
		return "null"
	}
	if s, ok := m["type"].(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return "without a type"
}

func (t *Tokenizer) setModel(m map[string]any) error {
	if typ := typeOf(m); typ != `"WordPiece"` {
		return fmt.Errorf("model %s is not supported; %s", typ, supported)
	}
	raw, ok := m["vocab"].(map[string]any)
	if !ok || len(raw) == 0 {
		return fmt.Errorf("WordPiece model has no vocab object")
	}
	vocab := make(map[string]int32, len(raw))
	for tok, v := range raw {
		id, ok := v.(float64)
		if !ok || id < 0 || id > math.MaxInt32 || id != math.Trunc(id) {
			return fmt.Errorf("WordPiece vocab entry %q has id %v, want a non-negative integer", tok, v)
		}
		vocab[tok] = int32(id)
		t.vocabSize = max(t.vocabSize, int(id)+1)
	}
	prefix := "##"
	if p, ok := m["continuing_subword_prefix"].(string); ok {
		prefix = p
	}
	maxChars := 100
	if v, ok := m["max_input_chars_per_word"].(float64); ok && v >= 1 {
		maxChars = int(min(v, math.MaxInt32))
	}
	unkTok, _ := m["unk_token"].(string)
	unk, ok := vocab[unkTok]
	if !ok {
		return fmt.Errorf("WordPiece unk_token %q is not in the vocab", unkTok)
	}
	t.wp = newWordPiece(vocab, prefix, unk, maxChars)
	return nil
}

func parseNormalizer(m map[string]any) (normalizer, error) {
	if m == nil {
		return normalizer{}, nil
	}
	if typ := typeOf(m); typ != `"BertNormalizer"` {
		return normalizer{}, fmt.Errorf("normalizer %s is not supported; %s", typ, supported)
	}
	flag := func(name string, def bool) bool {
		if v, ok := m[name].(bool); ok {
			return v
		}
		return def
	}
	n := normalizer{
		cleanText:    flag("clean_text", true),
		chineseChars: flag("handle_chinese_chars", true),
		lowercase:    flag("lowercase", true),
	}
	// strip_accents null means "whatever lowercase is".
	n.stripAccents = flag("strip_accents", n.lowercase)
	return n, nil
}

func (t *Tokenizer) setAdded(tokens []sugar.TokenConfig) error {
	for _, a := range tokens {
		switch {
		case a.Content == "":
			return fmt.Errorf("added token %d is empty", a.Id)
		case a.Normalized:
			return fmt.Errorf("added token %q is matched after normalization (normalized: true), which is not supported; %s with raw-text added tokens", a.Content, supported)
		case a.SingleWord || a.Lstrip || a.Rstrip:
			return fmt.Errorf("added token %q uses single_word/lstrip/rstrip, which is not supported; %s with plain added tokens", a.Content, supported)
		case a.Id < 0 || a.Id > math.MaxInt32:
			return fmt.Errorf("added token %q has id %d", a.Content, a.Id)
		}
		t.added = append(t.added, addedToken{text: a.Content, id: int32(a.Id), chars: int32(len([]rune(a.Content)))})
		t.addedFirst[a.Content[0]] = true
		t.vocabSize = max(t.vocabSize, int(a.Id)+1)
	}
	return nil
}
