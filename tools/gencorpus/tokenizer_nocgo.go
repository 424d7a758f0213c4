//go:build !cgo

package main

import (
	"fmt"
	"os"

	"qa-shard/tokenizer"
)

// loadTokenizer reads a tokenizer.json. A build without cgo (the GPU
// kit's static gencorpus) cannot open model folders: modeldir loads MeCab
// through cgo.
func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-tokenizer: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("-tokenizer %s: this gencorpus was built without cgo and reads only a tokenizer.json; a model folder needs a cgo build (go run ./tools/gencorpus)", path)
	}
	return tokenizer.Load(path)
}
