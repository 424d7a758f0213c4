package tokenizer

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testmodel"
)

// TestMain removes the tokenizer.json a test generated.
func TestMain(m *testing.M) {
	code := m.Run()
	if bertTemp != "" {
		os.RemoveAll(bertTemp)
	}
	os.Exit(code)
}

var (
	bertTemp string
	bertOnce sync.Once
	bertPath string
	bertErr  string
)

// bertTokenizerPath is bert-base-uncased's tokenizer.json: the file named by
// QA_SHARD_TEST_TOKENIZER, or one generated from the offline vocabulary.
// Without either the test fails: parity must not pass by skipping.
func bertTokenizerPath(t testing.TB) string {
	t.Helper()
	bertOnce.Do(func() {
		if p := os.Getenv("QA_SHARD_TEST_TOKENIZER"); p != "" {
			bertPath = p
			return
		}
		vocab, err := testenv.VocabJSON()
		if err != nil {
			bertErr = err.Error()
			return
		}
		raw, err := testmodel.BERTTokenizerJSON(vocab)
		if err != nil {
			bertErr = err.Error() + "; or set QA_SHARD_TEST_TOKENIZER to a bert-base-uncased tokenizer.json"
			return
		}
		dir, err := os.MkdirTemp("", "qa-shard-tokenizer-test-")
		if err == nil {
			bertTemp = dir
			bertPath = filepath.Join(dir, "tokenizer.json")
			err = os.WriteFile(bertPath, raw, 0o644)
		}
		if err != nil {
			bertErr = err.Error()
		}
	})
	if bertErr != "" {
		t.Fatal(bertErr)
	}
	return bertPath
}

var (
	loadOnce sync.Once
	loaded   *Tokenizer
	loadErr  error
)

func bertTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	path := bertTokenizerPath(t)
	loadOnce.Do(func() { loaded, loadErr = Load(path) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}
