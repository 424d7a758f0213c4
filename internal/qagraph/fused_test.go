package qagraph

import (
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/onnxpb"
)

// random is a Source of deterministic pseudo-random weights that honours
// transpose: matrices spread like BERT's initializer (std 0.05 here, so
// that a few layers move the logits), LayerNorm scales near 1.
type random map[string][]int64

// randomModel is config.json js with random weights: its config and a
// Source of every weight Specs lists for it.
func randomModel(t *testing.T, js string) (Config, random) {
	t.Helper()
	c, err := ParseConfig("config.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := Specs(c)
	if err != nil {
		t.Fatal(err)
	}
	src := random{}
	for _, s := range specs {
		src[s.Name] = s.Shape
	}
	return c, src
}

func (r random) Weight(name string, want []int64) (Weight, error) {
	shape := r[name]
	return Weight{Shape: shape, Write: func(w io.Writer, transpose bool) error {
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		vals := make([]float32, n)
		h := uint64(len(name)) * 0x9e3779b97f4a7c15
		for _, c := range name {
			h = (h ^ uint64(c)) * 0x100000001b3
		}
		for i := range vals {
			h ^= h >> 33
			h *= 0xff51afd7ed558ccd
			h ^= h >> 29
			u := float32(h>>40)/float32(1<<24) - 0.5 // uniform in [-0.5, 0.5)
			vals[i] = u * 0.17
			if strings.HasSuffix(name, "LayerNorm.weight") || strings.HasSuffix(name, "layer_norm.weight") {
				vals[i] = 1 + u*0.2
			}
		}
		if transpose && len(shape) == 2 {
			rows, cols := int(shape[0]), int(shape[1])
			t := make([]float32, n)
			for i := range rows {
				for j := range cols {
					t[j*rows+i] = vals[i*cols+j]
				}
			}
			vals = t
		}
		b := make([]byte, 4*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		_, err := w.Write(b)
		return err
	}}, nil
}

// fusedConfigs are small configs of every family and of the activations
// the fused graph writes differently.
var fusedConfigs = map[string]string{
	"bert":         `{"model_type": "bert", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 40}`,
	"bert-gelunew": `{"model_type": "bert", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 40, "hidden_act": "gelu_new"}`,
	"bert-relu":    `{"model_type": "bert", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 48, "max_position_embeddings": 40, "hidden_act": "relu"}`,
	"electra":      `{"model_type": "electra", "vocab_size": 60, "embedding_size": 16, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 40}`,
	"roberta":      `{"model_type": "roberta", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 44, "type_vocab_size": 1, "pad_token_id": 1}`,
	"xlm-roberta":  `{"model_type": "xlm-roberta", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 48, "max_position_embeddings": 44, "type_vocab_size": 1, "pad_token_id": 1}`,
	"albert":       `{"model_type": "albert", "vocab_size": 60, "embedding_size": 16, "hidden_size": 32, "num_hidden_layers": 4, "num_hidden_groups": 2, "inner_group_num": 1, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 40, "hidden_act": "gelu_new"}`,
	"distilbert":   `{"model_type": "distilbert", "vocab_size": 60, "dim": 32, "n_layers": 2, "n_heads": 4, "hidden_dim": 48, "max_position_embeddings": 40}`,
	"deberta-v2":   `{"model_type": "deberta-v2", "vocab_size": 60, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "max_position_embeddings": 40, "type_vocab_size": 0, "relative_attention": true, "position_buckets": 8, "pos_att_type": ["p2c", "c2p"], "norm_rel_ebd": "layer_norm", "share_att_key": true, "position_biased_input": false}`,
}

// TestFusedEqualsUnfused: for every family, the fused graph gives the
// unfused graph's logits (within 1e-5 on every unpadded token of a batch
// of rows padded differently), and is made of the fused operators: an
// Attention per layer (none for DeBERTa, whose attention stays unfused),
// two SkipLayerNormalization per layer, BiasGelu for exact GELU and
// FastGelu for the tanh one, EmbedLayerNormalization for the embeddings
// of the BERT-like families; no Softmax outside DeBERTa.
func TestFusedEqualsUnfused(t *testing.T) {
	ids := [][]int64{
		{2, 17, 23, 5, 9, 31, 44, 3, 12, 8, 7, 3},
		{2, 40, 41, 3, 19, 20, 21, 3, 1, 1, 1, 1},
		{2, 9, 3, 30, 3, 1, 1, 1, 1, 1, 1, 1},
	}
	mask := [][]int64{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}}
	types := [][]int64{{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0}, {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}}
	for name, js := range fusedConfigs {
		t.Run(name, func(t *testing.T) {
			c, src := randomModel(t, js)
			plain, fused := t.TempDir(), t.TempDir()
			if _, err := Build(plain, c, src); err != nil {
				t.Fatal(err)
			}
			if _, err := Build(fused, c, src, Fused()); err != nil {
				t.Fatal(err)
			}
			feed := map[string][][]int64{"input_ids": ids, "attention_mask": mask}
			if c.TokenTypes() {
				feed["token_type_ids"] = types
			}
			s1, e1 := run(t, filepath.Join(plain, ModelFile), feed)
			s2, e2 := run(t, filepath.Join(fused, ModelFile), feed)
			worst, spread := 0.0, 0.0
			for r := range s1 {
				for i := range s1[r] {
					if mask[r][i] == 0 {
						continue
					}
					worst = max(worst, math.Abs(float64(s1[r][i]-s2[r][i])), math.Abs(float64(e1[r][i]-e2[r][i])))
					spread = max(spread, math.Abs(float64(s1[r][i]-s1[0][0])))
				}
			}
			if worst > 1e-5 || spread < 1e-3 {
				t.Errorf("fused logits differ from unfused by up to %g (logits spread %g)", worst, spread)
			}
			ops := opCounts(t, filepath.Join(fused, ModelFile))
			want := map[string]int{"SkipLayerNormalization": 2 * c.Layers, "Attention": c.Layers, "Softmax": 0, "EmbedLayerNormalization": 1}
			switch c.HiddenAct {
			case "gelu":
				want["BiasGelu"] = c.Layers
			case "gelu_new":
				want["FastGelu"] = c.Layers
			}
			if c.ModelType == "deberta-v2" {
				want["Attention"], want["Softmax"], want["EmbedLayerNormalization"] = 0, c.Layers, 0
			}
			for op, n := range want {
				if ops[op] != n {
					t.Errorf("%d %s nodes, want %d (all: %v)", ops[op], op, n, ops)
				}
			}
		})
	}
}

// opCounts counts the nodes of the model file by operator.
func opCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnxpb.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range m.Graph.Nodes {
		out[n.OpType]++
	}
	return out
}

// TestFloat16: the float16 graph of every family loads and runs on
// ONNX Runtime's CPU provider (which is where qa-shard measures its
// agreement with float32); its inputs are int64 and its logits float32;
// every weight but the embedding tables is float16; and its logits stay
// within 1e-2 of float32's on these small models while differing from
// them (the arithmetic is float16's).
func TestFloat16(t *testing.T) {
	ids := [][]int64{{2, 17, 23, 5, 9, 31, 44, 3, 12, 8, 7, 3}, {2, 40, 41, 3, 19, 20, 21, 3, 1, 1, 1, 1}}
	mask := [][]int64{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}}
	for name, js := range fusedConfigs {
		t.Run(name, func(t *testing.T) {
			c, src := randomModel(t, js)
			plain, half := t.TempDir(), t.TempDir()
			if _, err := Build(plain, c, src); err != nil {
				t.Fatal(err)
			}
			if _, err := Build(half, c, src, Fused(), Float16()); err != nil {
				t.Fatal(err)
			}
			feed := map[string][][]int64{"input_ids": ids, "attention_mask": mask}
			if c.TokenTypes() {
				feed["token_type_ids"] = [][]int64{make([]int64, 12), make([]int64, 12)}
			}
			s1, e1 := run(t, filepath.Join(plain, ModelFile), feed)
			s2, e2 := run(t, filepath.Join(half, ModelFile), feed) // run reads float32 logits
			worst := 0.0
			for r := range s1 {
				for i := range s1[r] {
					if mask[r][i] == 1 {
						worst = max(worst, math.Abs(float64(s1[r][i]-s2[r][i])), math.Abs(float64(e1[r][i]-e2[r][i])))
					}
				}
			}
			if worst == 0 || worst > 1e-2 {
				t.Errorf("float16 logits differ from float32's by up to %g, want above 0 and at most 1e-2", worst)
			}
			b, err := os.ReadFile(filepath.Join(half, ModelFile))
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnxpb.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range m.Graph.Initializers {
				table := strings.Contains(w.Name, "embeddings.") && !strings.Contains(w.Name, "embed_proj") && !strings.Contains(w.Name, "rel_embeddings")
				if len(w.Dims) == 0 || w.DataType == onnxpb.Int64 || c.ModelType == "deberta-v2" && strings.Contains(w.Name, "embeddings.") {
					continue
				}
				if want := map[bool]int32{true: onnxpb.Float, false: onnxpb.Float16}[table]; w.DataType != want {
					t.Errorf("initializer %s is of type %d, want %d", w.Name, w.DataType, want)
				}
			}
		})
	}
}
