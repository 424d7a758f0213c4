// Package hfconfig reads the files of a Hugging Face tokenizer as
// transformers finds them in a model folder: tokenizer.json's top level
// (File: every component stays raw until its own package reads it), its
// padding, the side configs beside it (tokenizer_config.json and
// special_tokens_map.json) and, for people, the names of its components
// (Describe).
package hfconfig

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/added"
)

// File is the top level of tokenizer.json; every component stays raw
// until its own parser reads it.
type File struct {
	Version       string          `json:"version"`
	Truncation    json.RawMessage `json:"truncation"`
	Padding       json.RawMessage `json:"padding"`
	AddedTokens   []added.Config  `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
}

// Read decodes tokenizer.json's top level.
func Read(raw []byte) (File, error) {
	var f File
	if err := json.Unmarshal(raw, &f); err != nil {
		return File{}, fmt.Errorf("decode JSON: %w", err)
	}
	return f, nil
}
