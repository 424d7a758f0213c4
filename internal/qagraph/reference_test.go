package qagraph

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/checkpoint"
)

// referenceLogits is tools/reference/logits.py's logits.json.
type referenceLogits struct {
	Inputs      map[string][][]int64 `json:"inputs"`
	StartLogits [][]float32          `json:"start_logits"`
	EndLogits   [][]float32          `json:"end_logits"`
}

// TestAgainstTransformers: for every model tools/reference/logits.py made
// with transformers' own classes (QA_SHARD_REFERENCE_DIR), saved both as
// safetensors and as pytorch_model.bin, the graph built from the weights
// gives torch's start and end logits within 1e-4 on every unpadded token.
func TestAgainstTransformers(t *testing.T) {
	dir := os.Getenv("QA_SHARD_REFERENCE_DIR")
	if dir == "" {
		t.Skip("make test-reference runs it (it needs transformers and torch to make the models)")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var ref referenceLogits
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "logits.json"))
		if err != nil || json.Unmarshal(b, &ref) != nil {
			continue
		}
		for _, format := range []string{"safetensors", "bin"} {
			t.Run(e.Name()+"/"+format, func(t *testing.T) {
				folder := filepath.Join(dir, e.Name(), format)
				out := buildFolder(t, folder)
				start, end := run(t, filepath.Join(out, ModelFile), ref.Inputs)
				worst := 0.0
				for r := range start {
					for i := range start[r] {
						if ref.Inputs["attention_mask"][r][i] == 0 {
							continue
						}
						worst = max(worst, math.Abs(float64(start[r][i]-ref.StartLogits[r][i])), math.Abs(float64(end[r][i]-ref.EndLogits[r][i])))
					}
				}
				if worst > 1e-4 {
					t.Errorf("logits differ from torch's by up to %g", worst)
				}
				t.Logf("max |difference| %.2g", worst)
			})
		}
	}
}

// buildFolder builds the graph of a checkpoint folder into a new folder.
func buildFolder(t *testing.T, folder string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(folder, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("config.json", b)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.Open(folder)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	out := t.TempDir()
	if _, err := Build(out, c, FromCheckpoint(ck)); err != nil {
		t.Fatal(err)
	}
	return out
}
