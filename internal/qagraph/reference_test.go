package qagraph

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
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
// gives torch's start and end logits within 1e-4 on every unpadded token;
// so does the fused graph (Fused) built from the safetensors.
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
		for _, format := range []string{"safetensors", "bin", "safetensors/fused"} {
			t.Run(e.Name()+"/"+format, func(t *testing.T) {
				var opts []Option
				if f, ok := strings.CutSuffix(format, "/fused"); ok {
					format, opts = f, []Option{Fused()}
				}
				folder := filepath.Join(dir, e.Name(), format)
				out := buildFolder(t, folder, opts...)
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
func buildFolder(t *testing.T, folder string, opts ...Option) string {
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
	if _, err := Build(out, c, FromCheckpoint(ck), opts...); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExternalData: a model whose weights go to model.onnx.data (past
// 2 GiB; here forced for a small one) loads and gives the same logits as
// the same model in one file.
func TestExternalData(t *testing.T) {
	c, err := ParseConfig("config.json", []byte(`{"model_type": "bert", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 32}`))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := Specs(c)
	if err != nil {
		t.Fatal(err)
	}
	src := seeded{}
	for _, s := range specs {
		src[s.Name] = s.Shape
	}
	inline, external := t.TempDir(), t.TempDir()
	if res, err := Build(inline, c, src); err != nil || res.External {
		t.Fatalf("inline: %+v, %v", res, err)
	}
	saved := externalAbove
	externalAbove = 0
	res, err := Build(external, c, src)
	externalAbove = saved
	if err != nil || !res.External {
		t.Fatalf("external: %+v, %v", res, err)
	}
	if st, err := os.Stat(filepath.Join(external, DataFile)); err != nil || st.Size() < 50*16*4 {
		t.Fatalf("%s: %v", DataFile, err)
	}
	feed := map[string][][]int64{"input_ids": {{1, 7, 9, 2}}, "attention_mask": {{1, 1, 1, 1}}, "token_type_ids": {{0, 0, 1, 1}}}
	s1, e1 := run(t, filepath.Join(inline, ModelFile), feed)
	s2, e2 := run(t, filepath.Join(external, ModelFile), feed)
	for i := range s1[0] {
		if s1[0][i] != s2[0][i] || e1[0][i] != e2[0][i] {
			t.Fatalf("position %d: %v %v inline, %v %v external", i, s1[0][i], e1[0][i], s2[0][i], e2[0][i])
		}
	}
}

// seeded is a Source of deterministic weights of any shape.
type seeded map[string][]int64

func (s seeded) Weight(name string, want []int64) (Weight, error) {
	shape := s[name]
	return Weight{Shape: shape, Write: func(w io.Writer, _ bool) error {
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		b := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32((i*7+len(name))%13-6)/10))
		}
		_, err := w.Write(b)
		return err
	}}, nil
}
