//go:build cgo

package main

import (
	"fmt"

	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
)

// loadTokenizer reads a tokenizer.json, or the tokenizer of a model folder
// as qa-shard reads it (a folder without tokenizer.json too, such as a
// Japanese BERT's, whose words MeCab splits).
func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	tok, err := modeldir.Load(path)
	if err != nil {
		return nil, fmt.Errorf("-tokenizer %s: %w", path, err)
	}
	return tok, nil
}
