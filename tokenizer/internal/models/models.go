// Package models holds the models tokenizer.json may name (tokenizers'
// models/): WordPiece (wordpiece.go), BPE (bpe.go, bpe_word.go,
// bpe_cache.go) and Unigram (unigram.go, unigram_trie.go), each turning
// one word into stage.Pieces; Parse reads any of them, and refuses
// WordLevel.
package models

import (
	"encoding/json"
	"errors"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

const supportedModels = "WordPiece, BPE and Unigram"

// Parse is ModelWrapper's deserializer: by "type", or by shape for a
// file that names none.
func Parse(raw json.RawMessage) (stage.Model, error) {
	if hfjson.IsNull(raw) {
		return nil, fmt.Errorf("model: missing")
	}
	if !hfjson.HasType(raw) {
		return modelByShape(raw)
	}
	typ, err := hfjson.TypeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	switch typ {
	case "WordPiece":
		return parseWordPiece(raw)
	case "BPE":
		return parseBPE(raw)
	case "Unigram":
		return parseUnigram(raw)
	}
	return nil, hfjson.Unsupported("model", typ, supportedModels)
}

// modelByShape reads a model written without "type", as files from older
// tokenizers versions are. tokenizers' ModelWrapper then falls back to an
// untagged enum: the first of BPE, WordPiece, WordLevel and Unigram whose
// deserializer accepts the object wins (models/mod.rs, ModelUntagged). Each
// deserializer ignores fields it does not know, so what decides is which
// required fields are there and of what JSON kind:
//
//   - BPE: "vocab" an object and "merges" an array (of "a b" strings or of
//     [a, b] pairs), and the two build a model;
//   - WordPiece: "vocab" an object and all of "unk_token",
//     "continuing_subword_prefix" and "max_input_chars_per_word" present;
//   - WordLevel: "vocab" an object and "unk_token" present;
//   - Unigram: "vocab" an array ([piece, score] entries).
//
// A shape the next variant would take after a failed one is tried too, as
// serde does; the error of the first shape that matched is reported.
func modelByShape(raw json.RawMessage) (stage.Model, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("model: decode: %w", err)
	}
	kind := func(name string) byte {
		v, ok := fields[name]
		if !ok {
			return 0
		}
		for _, c := range v {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			}
			return c
		}
		return 0
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := fields[n]; !ok {
				return false
			}
		}
		return true
	}
	vocabMap := kind("vocab") == '{'
	var first error
	try := func(parse func(json.RawMessage) (stage.Model, error)) stage.Model {
		m, err := parse(raw)
		if err != nil && first == nil {
			first = err
		}
		return m
	}
	if vocabMap && kind("merges") == '[' {
		if m := try(parseBPE); m != nil {
			return m, nil
		}
	}
	if vocabMap && has("unk_token", "continuing_subword_prefix", "max_input_chars_per_word") {
		if m := try(func(r json.RawMessage) (stage.Model, error) {
			wp, err := parseWordPiece(r)
			if err != nil {
				return nil, err
			}
			return wp, nil
		}); m != nil {
			return m, nil
		}
	}
	if vocabMap && has("unk_token") {
		return nil, hfjson.Unsupported("model", "WordLevel", supportedModels+" (this model has no \"type\"; its vocab and unk_token make it WordLevel)")
	}
	if kind("vocab") == '[' {
		if m := try(parseUnigram); m != nil {
			return m, nil
		}
	}
	if first != nil {
		if errors.Is(first, hfjson.ErrUnsupported) {
			return nil, first
		}
		return nil, fmt.Errorf("model without \"type\": %w", first)
	}
	return nil, fmt.Errorf("model: a component without a \"type\" whose fields are none of BPE's (vocab, merges), WordPiece's (vocab, unk_token, continuing_subword_prefix, max_input_chars_per_word), WordLevel's (vocab, unk_token) or Unigram's (vocab as [piece, score] pairs): %.80s", raw)
}
