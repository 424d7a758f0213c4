package testmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
// by tools/familyjson).
var Families = []Family{
	{Name: "roberta", ModelType: "roberta", Architecture: "RobertaForQuestionAnswering"},
	{Name: "xlmr", ModelType: "xlm-roberta", Architecture: "XLMRobertaForQuestionAnswering"},
	{Name: "deberta", ModelType: "deberta-v2", Architecture: "DebertaV2ForQuestionAnswering"},
	{Name: "albert", ModelType: "albert", Architecture: "AlbertForQuestionAnswering", TokenTypes: true},
}

// BERT is BERT's own layout (token types; [CLS] q [SEP] c [SEP]), for a
// BERT whose tokenizer folder is not bert-base-uncased's: the Japanese
// demo model's vocab.txt and tokenizer_config.json.
var BERT = Family{Name: "bert", ModelType: "bert", Architecture: "BertForQuestionAnswering", TokenTypes: true}

// tokenizerFiles are what a family's tokenizer folder holds and a model
// folder carries over; slowTokenizerFiles those of a folder without
// tokenizer.json, as optimum exports a tokenizer that has no fast form
// (a Japanese BERT's), special_tokens_map.json optional.
var (
	tokenizerFiles     = []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}
	slowTokenizerFiles = []string{"vocab.txt", "tokenizer_config.json"}
)

// GenerateFamily writes a model directory shaped like f's optimum export:
// the tokenizer files of tokDir (tokenizer.json, or vocab.txt where the
// folder has no tokenizer.json), a config.json of f's model_type whose
// vocab_size is the tokenizer's, and p's seeded BERT graph sized to that
// vocabulary (without token_type_ids unless f takes them). p.VocabSize is
// ignored.
func GenerateFamily(dir string, p Preset, f Family, tokDir string, opts ...Option) error {
	files, n, err := readTokenizerFiles(tokDir)
	if err != nil {
		return fmt.Errorf("generate %s: %w", dir, err)
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

// readTokenizerFiles reads the tokenizer files of tokDir and the size of
// its vocabulary: tokenizerFiles, or slowTokenizerFiles (and
// special_tokens_map.json if there) when tokDir has no tokenizer.json.
func readTokenizerFiles(tokDir string) (map[string][]byte, int, error) {
	files := map[string][]byte{}
	if _, err := os.Stat(filepath.Join(tokDir, "tokenizer.json")); errors.Is(err, fs.ErrNotExist) {
		if b, err := os.ReadFile(filepath.Join(tokDir, "special_tokens_map.json")); err == nil {
			files["special_tokens_map.json"] = b
		}
		return readSlow(tokDir, slowTokenizerFiles, files)
	}
	for _, name := range tokenizerFiles {
		b, err := os.ReadFile(filepath.Join(tokDir, name))
		if err != nil {
			return nil, 0, err
		}
		files[name] = b
	}
	n, err := tokenizerSize(files["tokenizer.json"])
	if err != nil {
		return nil, 0, fmt.Errorf("%s/tokenizer.json: %w", tokDir, err)
	}
	return files, n, nil
}

// readSlow adds names of tokDir to files; the vocabulary's size is
// vocab.txt's line count.
func readSlow(tokDir string, names []string, files map[string][]byte) (map[string][]byte, int, error) {
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(tokDir, name))
		if err != nil {
			return nil, 0, fmt.Errorf("%w (a tokenizer folder without tokenizer.json needs %v)", err, names)
		}
		files[name] = b
	}
	n := bytes.Count(files["vocab.txt"], []byte("\n"))
	if v := files["vocab.txt"]; len(v) > 0 && v[len(v)-1] != '\n' {
		n++
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("%s/vocab.txt: empty vocabulary", tokDir)
	}
	return files, n, nil
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
