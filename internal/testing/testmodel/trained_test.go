package testmodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// demoDirs hold the trained demo models (tools/trainqa): their weights,
// and a padded batch with the logits PyTorch computed for it. demo-bpe was
// trained without token types (RoBERTa's layout): one type row, and its
// graph takes no token_type_ids. demo-ja is the Japanese demo model (BERT's
// layout, bert-base-japanese-v3's vocabulary).
var demoDirs = []struct {
	dir       string
	typeVocab int
}{{"demo", 2}, {"demo-bpe", 1}, {"demo-unigram", 2}, {"demo-ja", 2}}

// TestTrainedParity builds the ONNX graph around the committed trained
// weights and checks that ONNX Runtime gives the logits PyTorch gave, on
// windows with and without the answer, padded to one length.
func TestTrainedParity(t *testing.T) {
	for _, d := range demoDirs {
		t.Run(d.dir, func(t *testing.T) { checkParity(t, d.dir, d.typeVocab) })
	}
}

func checkParity(t *testing.T, dir string, typeVocab int) {
	w, err := ReadWeights(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Preset(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.TypeVocab != typeVocab {
		t.Fatalf("%d token type rows, want %d", p.TypeVocab, typeVocab)
	}
	var opts []Option
	if p.TypeVocab == 1 {
		opts = append(opts, WithoutTokenTypeIDs())
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteModel(f, p, append(opts, WithWeights(w))...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(filepath.Join(dir, "parity.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := parseSafetensors(raw, true)
	if err != nil {
		t.Fatal(err)
	}
	b := batch{ids: ints2D(t, ref, "input_ids"), mask: ints2D(t, ref, "attention_mask"), types: ints2D(t, ref, "token_type_ids")}
	start, end := runQA(t, path, b, p.TypeVocab > 1, false)
	var worst float64
	for name, got := range map[string][][]float32{"start_logits": start, "end_logits": end} {
		want := ref.tensors[name]
		cols := len(b.ids[0])
		for r := range got {
			for c := range got[r] {
				// 1e-4, relative for logits above 1 in size (the trained
				// model's reach about 20): float32 sums in another order.
				w := float64(want.data[r*cols+c])
				d := math.Abs(float64(got[r][c])-w) / max(1, math.Abs(w))
				worst = max(worst, d)
				if d > 1e-4 {
					t.Fatalf("%s[%d][%d]: ONNX Runtime %g, PyTorch %g", name, r, c, got[r][c], want.data[r*cols+c])
				}
			}
		}
	}
	t.Logf("%d windows of up to %d tokens: largest (relative) difference %.2g", len(b.ids), len(b.ids[0]), worst)
}

func ints2D(t *testing.T, w *Weights, name string) [][]int64 {
	t.Helper()
	x, ok := w.tensors[name]
	if !ok || len(x.shape) != 2 {
		t.Fatalf("parity file lacks a 2-D %s", name)
	}
	out := make([][]int64, x.shape[0])
	for r := range out {
		for _, v := range x.data[r*int(x.shape[1]) : (r+1)*int(x.shape[1])] {
			out[r] = append(out[r], int64(v))
		}
	}
	return out
}

// safetensors encodes float32 tensors the way train.py writes them.
func safetensors(t *testing.T, tensors map[string][]int64, meta map[string]string) []byte {
	t.Helper()
	header := map[string]any{"__metadata__": meta}
	var data []byte
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		count := tensorElems(tensors[n])
		vals := make([]float32, count)
		for i := range vals {
			vals[i] = float32(i%7) / 10
		}
		header[n] = map[string]any{"dtype": "F32", "shape": tensors[n], "data_offsets": []int{len(data), len(data) + 4*count}}
		data = append(data, float32Bytes(vals...)...)
	}
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), data...)
}

// tinyShapes are Tiny's parameters in Hugging Face's layout.
func tinyShapes() map[string][]int64 {
	h, i := int64(Tiny.Hidden), int64(Tiny.Intermediate)
	s := map[string][]int64{
		"bert.embeddings.word_embeddings.weight":       {30522, h},
		"bert.embeddings.position_embeddings.weight":   {512, h},
		"bert.embeddings.token_type_embeddings.weight": {2, h},
		"bert.embeddings.LayerNorm.weight":             {h},
		"bert.embeddings.LayerNorm.bias":               {h},
		"qa_outputs.weight":                            {2, h},
		"qa_outputs.bias":                              {2},
	}
	for l := range Tiny.Layers {
		p := "bert.encoder.layer." + string(rune('0'+l)) + "."
		for _, m := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			s[p+m+".weight"], s[p+m+".bias"] = []int64{h, h}, []int64{h}
		}
		for _, m := range []string{"attention.output.LayerNorm", "output.LayerNorm"} {
			s[p+m+".weight"], s[p+m+".bias"] = []int64{h}, []int64{h}
		}
		s[p+"intermediate.dense.weight"], s[p+"intermediate.dense.bias"] = []int64{i, h}, []int64{i}
		s[p+"output.dense.weight"], s[p+"output.dense.bias"] = []int64{h, i}, []int64{h}
	}
	return s
}

func TestWeightsPresetAndMismatches(t *testing.T) {
	meta := map[string]string{"num_attention_heads": "2"}
	w, err := parseSafetensors(safetensors(t, tinyShapes(), meta), false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Preset("x")
	if err != nil {
		t.Fatal(err)
	}
	want := Tiny
	want.Name, want.Seed = "x", 0
	if p != want {
		t.Fatalf("preset %+v, want %+v", p, want)
	}
	// A Linear weight is [out, in] in the file and [in, out] in the graph.
	q, err := w.take("qa_outputs.weight", true, int64(Tiny.Hidden), 2)
	if err != nil {
		t.Fatal(err)
	}
	orig := w.tensors["qa_outputs.weight"].data
	if q[1] != orig[Tiny.Hidden] || q[2] != orig[1] {
		t.Fatalf("transpose: got %v from %v", q[:3], orig[:3])
	}
	if _, err := WriteModel(&bytes.Buffer{}, p, WithWeights(w)); err != nil {
		t.Fatal(err)
	}

	cases := map[string]func(map[string][]int64){
		"missing tensor": func(s map[string][]int64) { delete(s, "bert.encoder.layer.1.output.dense.bias") },
		"wrong shape":    func(s map[string][]int64) { s["qa_outputs.weight"] = []int64{int64(Tiny.Hidden), 2} },
		"extra tensor":   func(s map[string][]int64) { s["bert.pooler.dense.bias"] = []int64{4} },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			s := tinyShapes()
			edit(s)
			w, err := parseSafetensors(safetensors(t, s, meta), false)
			if err != nil {
				t.Fatal(err)
			}
			_, err = WriteModel(&bytes.Buffer{}, p, WithWeights(w))
			if !errors.Is(err, ErrWeights) {
				t.Fatalf("got %v, want ErrWeights", err)
			}
		})
	}
	if _, err := parseSafetensors([]byte("short"), false); !errors.Is(err, ErrWeights) {
		t.Fatalf("truncated file: %v", err)
	}
	noHeads, _ := parseSafetensors(safetensors(t, tinyShapes(), nil), false)
	if _, err := noHeads.Preset("x"); !errors.Is(err, ErrWeights) {
		t.Fatalf("no head count: %v", err)
	}
}
