package qagraph

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/checkpoint"
)

// TestCheckpointSource: the old LayerNorm.gamma and .beta names serve
// LayerNorm.weight and .bias; a buffer (int64) is refused as a weight;
// tensors a QA model ignores (position_ids, a pooler) are not reported
// unused, others are.
func TestCheckpointSource(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, checkpoint.SafetensorsFile))
	if err != nil {
		t.Fatal(err)
	}
	fill := func(n int) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write(make([]byte, 4*n)); return err }
	}
	err = checkpoint.WriteSafetensors(f, []checkpoint.NewTensor{
		{Name: "bert.embeddings.LayerNorm.gamma", Shape: []int64{4}, Fill: fill(4)},
		{Name: "bert.embeddings.LayerNorm.beta", Shape: []int64{4}, Fill: fill(4)},
		{Name: "bert.pooler.dense.weight", Shape: []int64{4, 4}, Fill: fill(16)},
		{Name: "bert.embeddings.position_ids", Shape: []int64{1, 4}, Fill: fill(4)},
		{Name: "stray.weight", Shape: []int64{2}, Fill: fill(2)},
	})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoint.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := FromCheckpoint(c)
	for _, name := range []string{"bert.embeddings.LayerNorm.weight", "bert.embeddings.LayerNorm.bias"} {
		if w, err := s.Weight(name, []int64{4}); err != nil || len(w.Shape) != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.Weight("bert.embeddings.LayerNorm.weight", []int64{5}); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "implies [5]") {
		t.Errorf("wrong shape: %v", err)
	}
	if left := s.Unused(); len(left) != 1 || left[0] != "stray.weight" {
		t.Errorf("unused %v, want stray.weight alone", left)
	}
}

// TestBufferIsNoWeight: an int64 buffer asked for as a weight is refused
// naming its type.
func TestBufferIsNoWeight(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../checkpoint/testdata/state.bin")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, checkpoint.TorchFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := checkpoint.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := FromCheckpoint(c).Weight("embeddings.position_ids", []int64{1, 4}); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "LongStorage") {
		t.Errorf("buffer as a weight: %v", err)
	}
}
