package onnxpb_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/onnxpb"
	"qa-shard/internal/testing/testmodel"
)

func tinyModel(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := testmodel.WriteModel(&buf, testmodel.Tiny); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParseGeneratedModel reads what testmodel writes (an optimum-shaped
// BERT) and checks what it decoded against what the generator built.
func TestParseGeneratedModel(t *testing.T) {
	b := tinyModel(t)
	m, err := onnxpb.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := m.OpsetVersion(""); !ok || v != 14 {
		t.Errorf("ai.onnx opset %d, %v; want 14", v, ok)
	}
	if v, ok := m.OpsetVersion("ai.onnx"); !ok || v != 14 {
		t.Errorf("opset by the name ai.onnx: %d, %v", v, ok)
	}
	if m.IRVersion != 8 || m.Graph == nil || m.GraphAt < 0 {
		t.Fatalf("IR %d, graph %v at %d", m.IRVersion, m.Graph != nil, m.GraphAt)
	}
	ops := map[string]int{}
	m.Graph.Walk(func(n *onnxpb.Node) { ops[n.OpType]++ })
	// Per layer: 6 linear layers (Q, K, V, attention output, intermediate,
	// output) + 2 attention MatMuls; plus the qa_outputs head.
	if ops["MatMul"] != 2*8+1 || ops["Erf"] != 2 || ops["Softmax"] != 2 {
		t.Errorf("operators %v", ops)
	}
	var names []string
	for _, v := range m.Graph.Inputs {
		names = append(names, v.Name)
	}
	for _, v := range m.Graph.Outputs {
		names = append(names, v.Name)
	}
	if got := joined(names); got != "input_ids attention_mask token_type_ids start_logits end_logits" {
		t.Errorf("inputs and outputs %q", got)
	}
	var w *onnxpb.Tensor
	for _, x := range m.Graph.Initializers {
		if x.Name == "qa_outputs.weight" {
			w = x
		}
	}
	if w == nil || w.DataType != onnxpb.Float || len(w.Dims) != 2 || w.Dims[0] != 32 || w.Dims[1] != 2 {
		t.Fatalf("qa_outputs.weight: %+v", w)
	}
	vals, err := w.Float32s()
	if err != nil || len(vals) != 64 {
		t.Fatalf("%d values, %v", len(vals), err)
	}
	nonzero := 0
	for _, v := range vals {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero < 60 {
		t.Errorf("only %d of 64 weights are nonzero: decoded from the wrong bytes?", nonzero)
	}
	// Every field's Raw bytes, concatenated, are the file again.
	var again onnxpb.Pieces
	for _, f := range m.Fields {
		again.Add(f.Raw)
	}
	var buf bytes.Buffer
	if _, err := again.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), b) || again.Len() != len(b) {
		t.Error("the fields' raw bytes do not reassemble the file")
	}
}

func joined(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// TestTruncated: a model cut anywhere is an error, never a panic.
func TestTruncated(t *testing.T) {
	b := tinyModel(t)
	for _, cut := range []int{1, 7, 100, len(b) / 2, len(b) - 1} {
		if _, err := onnxpb.Parse(b[:cut]); !errors.Is(err, onnxpb.ErrMalformed) {
			t.Errorf("model cut at %d bytes: %v", cut, err)
		}
	}
}

func TestOpTypesAndOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, tinyModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := onnxpb.OpTypes(path)
	if err != nil || ops["MatMul"] != 17 || ops["Gather"] == 0 {
		t.Fatalf("%v, %v", ops, err)
	}
	empty := filepath.Join(dir, "empty.onnx")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := onnxpb.OpTypes(empty); !errors.Is(err, onnxpb.ErrMalformed) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := onnxpb.OpTypes(filepath.Join(dir, "missing.onnx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
