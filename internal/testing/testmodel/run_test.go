package testmodel

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// batch is a padded batch: every row of ids, mask and types has one length.
type batch struct {
	ids, mask, types [][]int64
}

// row returns a [CLS] question [SEP] context [SEP] sequence of n tokens with
// segment ids like BERT's pair encoding; ids come from the ordinary-word part
// of the vocabulary, varied by salt so that rows differ.
func row(n int, salt int64) seq {
	ids := make([]int64, n)
	types := make([]int64, n)
	q := n / 3
	for i := range ids {
		ids[i] = 2000 + (salt*7919+int64(i)*104729)%28000
		if i > q {
			types[i] = 1
		}
	}
	ids[0], ids[q], ids[n-1] = 101, 102, 102
	return seq{ids, types}
}

// seq is one unpadded encoded sequence.
type seq struct{ ids, types []int64 }

// pad right-pads each row to width with [PAD]=0, mask 0 and segment 0.
func pad(width int, rows ...seq) batch {
	var b batch
	for _, r := range rows {
		ids := make([]int64, width)
		mask := make([]int64, width)
		types := make([]int64, width)
		copy(ids, r.ids)
		copy(types, r.types)
		for i := range r.ids {
			mask[i] = 1
		}
		b.ids, b.mask, b.types = append(b.ids, ids), append(b.mask, mask), append(b.types, types)
	}
	return b
}

func tinyModel(t *testing.T, opts ...Option) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.onnx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteModel(f, Tiny, opts...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func int64Tensor(t *testing.T, rows [][]int64) *ort.Tensor[int64] {
	t.Helper()
	var flat []int64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	x, err := ort.NewTensor(ort.NewShape(int64(len(rows)), int64(len(rows[0]))), flat)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// runQA runs the model at path and returns start and end logits per row.
// Outputs are allocated here: onnxruntime_go v1.27.0 sizes an auto-allocated
// float16 output by element count instead of bytes and fails to wrap it.
func runQA(t *testing.T, path string, b batch, withTypes, fp16 bool) (start, end [][]float32) {
	t.Helper()
	requireORT(t)
	names := []string{"input_ids", "attention_mask"}
	inputs := []ort.Value{int64Tensor(t, b.ids), int64Tensor(t, b.mask)}
	if withTypes {
		names = append(names, "token_type_ids")
		inputs = append(inputs, int64Tensor(t, b.types))
	}
	rows, cols := len(b.ids), len(b.ids[0])
	shape := ort.NewShape(int64(rows), int64(cols))
	outputs := make([]ort.Value, 2)
	for i := range outputs {
		var err error
		if fp16 {
			outputs[i], err = ort.NewCustomDataTensor(shape, make([]byte, 2*rows*cols), ort.TensorElementDataTypeFloat16)
		} else {
			outputs[i], err = ort.NewEmptyTensor[float32](shape)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, v := range append(inputs, outputs...) {
			v.Destroy()
		}
	}()
	s, err := ort.NewDynamicAdvancedSession(path, names, []string{"start_logits", "end_logits"}, nil)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	defer s.Destroy()
	if err := s.Run(inputs, outputs); err != nil {
		t.Fatalf("run: %v", err)
	}
	return split2D(outputs[0], rows, cols, fp16), split2D(outputs[1], rows, cols, fp16)
}

func split2D(v ort.Value, rows, cols int, fp16 bool) [][]float32 {
	flat := make([]float32, rows*cols)
	if fp16 {
		raw := v.(*ort.CustomDataTensor).GetData()
		for i := range flat {
			flat[i] = float16Value(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	} else {
		copy(flat, v.(*ort.Tensor[float32]).GetData())
	}
	out := make([][]float32, rows)
	for r := range out {
		out[r] = flat[r*cols : (r+1)*cols]
	}
	return out
}
