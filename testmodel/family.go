package testmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Family describes how a model family's optimum export looks from the
// outside: config.json's model_type and architecture, and whether the
// graph takes token_type_ids (RoBERTa, XLM-R and DeBERTa-v2/v3 exports do
// not).
type Family struct {
	Name, ModelType, Architecture string
	TokenTypes                    bool
}

// Families are the non-BERT layouts qa-shard reads (tokenizer folders made
// by tokenizer/internal/familyjson).
var Families = []Family{
	{Name: "roberta", ModelType: "roberta", Architecture: "RobertaForQuestionAnswering"},
	{Name: "xlmr", ModelType: "xlm-roberta", Architecture: "XLMRobertaForQuestionAnswering"},
	{Name: "deberta", ModelType: "deberta-v2", Architecture: "DebertaV2ForQuestionAnswering"},
	{Name: "albert", ModelType: "albert", Architecture: "AlbertForQuestionAnswering", TokenTypes: true},
}

// tokenizerFiles are what a family's tokenizer folder holds and a model
// folder carries over.
var tokenizerFiles = []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}

// GenerateFamily writes a model directory shaped like f's optimum export:
// the tokenizer files of tokDir, a config.json of f's model_type whose
// vocab_size is the tokenizer's, and p's seeded BERT graph sized to that
// vocabulary (without token_type_ids unless f takes them). p.VocabSize is
// ignored.
func GenerateFamily(dir string, p Preset, f Family, tokDir string, opts ...Option) error {
	files := map[string][]byte{}
	for _, name := range tokenizerFiles {
		b, err := os.ReadFile(filepath.Join(tokDir, name))
		if err != nil {
			return fmt.Errorf("generate %s: %w", dir, err)
		}
		files[name] = b
	}
	n, err := tokenizerSize(files["tokenizer.json"])
	if err != nil {
		return fmt.Errorf("generate %s: %s/tokenizer.json: %w", dir, tokDir, err)
	}
	p.VocabSize, p.Name = n, p.Name+"-"+f.Name
	if !f.TokenTypes {
		p.TypeVocab = 1
		opts = append(opts, WithoutTokenTypeIDs())
	}
	if files["config.json"], err = familyConfigJSON(p, f.ModelType, f.Architecture); err != nil {
		return fmt.Errorf("generate %s: config.json: %w", dir, err)
	}
	if err := p.validate(); err != nil {
		return fmt.Errorf("generate %s: %w", dir, err)
	}
	if err := writeFiles(dir, files, p, opts); err != nil {
		return fmt.Errorf("generate %s: %w", dir, err)
	}
	return nil
}

// tokenizerSize is one more than the largest id of tokenizer.json (its
// model's vocab, a map for WordPiece and BPE or a list for Unigram, and its
// added tokens).
func tokenizerSize(raw []byte) (int, error) {
	var c struct {
		Added []struct {
			ID int `json:"id"`
		} `json:"added_tokens"`
		Model struct {
			Vocab json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, err
	}
	n := 0
	var m map[string]int
	var list [][2]any
	switch {
	case json.Unmarshal(c.Model.Vocab, &m) == nil:
		for _, id := range m {
			n = max(n, id+1)
		}
	case json.Unmarshal(c.Model.Vocab, &list) == nil:
		n = len(list)
	default:
		return 0, fmt.Errorf("model.vocab is neither a map nor a list")
	}
	for _, a := range c.Added {
		n = max(n, a.ID+1)
	}
	if n == 0 {
		return 0, fmt.Errorf("empty vocabulary")
	}
	return n, nil
}
