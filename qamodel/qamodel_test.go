package qamodel

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"qa-shard/internal/cli"
	"qa-shard/internal/errkind"
	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testfixtures"
	"qa-shard/worker"
)

var ort struct {
	sync.Once
	err error
}

// tiny loads ONNX Runtime (once) and writes the tiny test model into a
// folder of the test's.
func tiny(t *testing.T) string {
	t.Helper()
	ort.Do(func() {
		lib, err := testenv.ORTLib()
		if err == nil {
			err = worker.Init(lib)
		}
		ort.err = err
	})
	if ort.err != nil {
		t.Fatal(ort.err)
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := testfixtures.GenerateTiny(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOpen: a model folder gives its graph and its tokenizer.json, and the
// tokenizer encodes with the graph's vocabulary.
func TestOpen(t *testing.T) {
	m, err := Open(tiny(t), Options{}, 384, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin.Converted() || filepath.Base(m.Graph.TokenizerPath) != "tokenizer.json" {
		t.Errorf("tokenizer from %s (converted %v), want the folder's tokenizer.json", m.Graph.TokenizerPath, m.Origin.Converted())
	}
	if got := m.Tok.Encode("who founded the company").Len(); got == 0 {
		t.Error("the tokenizer gives no tokens for a question")
	}
	if err := m.Graph.CheckVocab(m.Tok.VocabSize()); err != nil {
		t.Error(err)
	}
}

// TestOpenRefusesTooLong: --max-seq-len beyond the model's positions is
// the user's to fix (exit 2), naming both numbers.
func TestOpenRefusesTooLong(t *testing.T) {
	dir := tiny(t)
	probe, err := Open(dir, Options{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	positions := probe.Graph.MaxPositions
	if positions <= 0 {
		t.Fatalf("the tiny model declares no max_position_embeddings (%d): nothing to check against", positions)
	}
	_, err = Open(dir, Options{}, positions+1, nil)
	if !errors.Is(err, cli.ErrUsage) || errkind.Of(err) != errkind.User {
		t.Fatalf("max seq len %d over %d positions: %v; want cli.ErrUsage, a user error", positions+1, positions, err)
	}
	if _, err := Open(dir, Options{}, positions, nil); err != nil {
		t.Fatalf("max seq len equal to the positions: %v", err)
	}
}
