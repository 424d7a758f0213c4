package testmodel

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestTokenizerJSONLayout(t *testing.T) {
	vocab := loadBERTVocab(t)
	raw, err := TokenizerJSON(vocab)
	if err != nil {
		t.Fatal(err)
	}
	again, err := TokenizerJSON(vocab)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, again) {
		t.Fatal("two calls gave different bytes")
	}

	// Hugging Face's file lists the top-level keys in this order.
	keys := []string{"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder", "model"}
	last := -1
	for _, k := range keys {
		at := bytes.Index(raw, []byte("\n  \""+k+"\":"))
		if at <= last {
			t.Fatalf("top-level key %q missing or out of order", k)
		}
		last = at
	}

	var doc struct {
		Version     string           `json:"version"`
		Truncation  any              `json:"truncation"`
		Padding     any              `json:"padding"`
		AddedTokens []map[string]any `json:"added_tokens"`
		Normalizer  map[string]any   `json:"normalizer"`
		PreTok      map[string]any   `json:"pre_tokenizer"`
		Post        struct {
			Type          string                    `json:"type"`
			Single        []map[string]templateRef  `json:"single"`
			Pair          []map[string]templateRef  `json:"pair"`
			SpecialTokens map[string]map[string]any `json:"special_tokens"`
		} `json:"post_processor"`
		Decoder map[string]any `json:"decoder"`
		Model   struct {
			Type     string         `json:"type"`
			Unk      string         `json:"unk_token"`
			Prefix   string         `json:"continuing_subword_prefix"`
			MaxChars int            `json:"max_input_chars_per_word"`
			Vocab    map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "1.0" || doc.Truncation != nil || doc.Padding != nil {
		t.Errorf("header: version %q truncation %v padding %v", doc.Version, doc.Truncation, doc.Padding)
	}
	wantAdded := []struct {
		id   float64
		text string
	}{{0, "[PAD]"}, {100, "[UNK]"}, {101, "[CLS]"}, {102, "[SEP]"}, {103, "[MASK]"}}
	if len(doc.AddedTokens) != len(wantAdded) {
		t.Fatalf("%d added tokens", len(doc.AddedTokens))
	}
	for i, w := range wantAdded {
		a := doc.AddedTokens[i]
		if a["id"] != w.id || a["content"] != w.text || a["special"] != true || a["normalized"] != false ||
			a["lstrip"] != false || a["rstrip"] != false || a["single_word"] != false {
			t.Errorf("added token %d = %v", i, a)
		}
	}
	if n := doc.Normalizer; n["type"] != "BertNormalizer" || n["clean_text"] != true || n["handle_chinese_chars"] != true ||
		n["lowercase"] != true || n["strip_accents"] != nil {
		t.Errorf("normalizer = %v", n)
	}
	if _, ok := doc.Normalizer["strip_accents"]; !ok {
		t.Error("strip_accents must be present as null")
	}
	if doc.PreTok["type"] != "BertPreTokenizer" {
		t.Errorf("pre_tokenizer = %v", doc.PreTok)
	}
	if doc.Post.Type != "TemplateProcessing" {
		t.Errorf("post_processor type %q", doc.Post.Type)
	}
	describe := func(pieces []map[string]templateRef) string {
		var parts []string
		for _, p := range pieces {
			for kind, ref := range p {
				parts = append(parts, kind+":"+ref.ID+":"+string(rune('0'+ref.TypeID)))
			}
		}
		return strings.Join(parts, " ")
	}
	if got := describe(doc.Post.Single); got != "SpecialToken:[CLS]:0 Sequence:A:0 SpecialToken:[SEP]:0" {
		t.Errorf("single template %s", got)
	}
	if got := describe(doc.Post.Pair); got != "SpecialToken:[CLS]:0 Sequence:A:0 SpecialToken:[SEP]:0 Sequence:B:1 SpecialToken:[SEP]:1" {
		t.Errorf("pair template %s", got)
	}
	if cls := doc.Post.SpecialTokens["[CLS]"]; cls["ids"].([]any)[0] != 101.0 {
		t.Errorf("special [CLS] = %v", cls)
	}
	if sep := doc.Post.SpecialTokens["[SEP]"]; sep["ids"].([]any)[0] != 102.0 {
		t.Errorf("special [SEP] = %v", sep)
	}
	if d := doc.Decoder; d["type"] != "WordPiece" || d["prefix"] != "##" || d["cleanup"] != true {
		t.Errorf("decoder = %v", d)
	}
	m := doc.Model
	if m.Type != "WordPiece" || m.Unk != "[UNK]" || m.Prefix != "##" || m.MaxChars != 100 {
		t.Errorf("model = %s %s %s %d", m.Type, m.Unk, m.Prefix, m.MaxChars)
	}
	if len(m.Vocab) != len(vocab) {
		t.Fatalf("vocab has %d entries, want %d", len(m.Vocab), len(vocab))
	}
	for id, tok := range vocab {
		if m.Vocab[tok] != id {
			t.Fatalf("vocab[%q] = %d, want %d", tok, m.Vocab[tok], id)
		}
	}
	// Hugging Face writes the vocab in id order; so must we.
	if a, b := bytes.Index(raw, []byte(`"[PAD]": 0`)), bytes.Index(raw, []byte(`"the": 1996`)); a < 0 || b < 0 || a > b {
		t.Errorf("vocab not in id order (%d, %d)", a, b)
	}
}

func TestTokenizerJSONMissingSpecial(t *testing.T) {
	if _, err := TokenizerJSON([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]"}); err == nil || !strings.Contains(err.Error(), "[MASK]") {
		t.Fatalf("err = %v, want one naming [MASK]", err)
	}
	if _, err := TokenizerJSON([]string{"a", "a"}); err == nil {
		t.Fatal("duplicate accepted")
	}
}
