package worker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestOpenModelVariants(t *testing.T) {
	cases := []struct {
		variant, typeIDs, logitsType string
		elem                         ort.TensorElementDataType
	}{
		{"tiny", "token_type_ids", "float32", ort.TensorElementDataTypeFloat},
		{"tiny-notype", "", "float32", ort.TensorElementDataTypeFloat},
		{"tiny-fp16", "token_type_ids", "float16", ort.TensorElementDataTypeFloat16},
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			m := openModel(t, c.variant)
			dir := model(t, c.variant)
			if m.Dir != dir || m.ONNXPath != filepath.Join(dir, "model.onnx") || m.TokenizerPath != filepath.Join(dir, "tokenizer.json") {
				t.Errorf("paths %q %q %q", m.Dir, m.ONNXPath, m.TokenizerPath)
			}
			if m.InputIDs != "input_ids" || m.AttentionMask != "attention_mask" || m.TokenTypeIDs != c.typeIDs {
				t.Errorf("inputs %q %q %q, want input_ids attention_mask %q", m.InputIDs, m.AttentionMask, m.TokenTypeIDs, c.typeIDs)
			}
			if m.StartLogits != "start_logits" || m.EndLogits != "end_logits" || m.LogitsType != c.elem || m.LogitsTypeName() != c.logitsType {
				t.Errorf("outputs %q %q of %v (%s), want %s", m.StartLogits, m.EndLogits, m.LogitsType, m.LogitsTypeName(), c.logitsType)
			}
			if m.MaxPositions != 512 || m.ModelType != "bert" || m.VocabSize != 30522 {
				t.Errorf("config: max positions %d, model type %q, vocab size %d; want 512, bert, 30522", m.MaxPositions, m.ModelType, m.VocabSize)
			}
			if m.EmbeddingRows != 30522 {
				t.Errorf("word embedding table of %d rows, want 30522", m.EmbeddingRows)
			}
		})
	}
}

// Element types of onnx.proto's TensorProto.DataType.
const (
	onnxFloat = 1
	onnxInt64 = 7
)

type tensorIO struct {
	name string
	elem uint64
}

// identityModel writes a minimal ONNX model: each output is an Identity
// of the input at the same index, with [batch, sequence] shapes.
func identityModel(t *testing.T, path string, ins, outs []tensorIO) {
	t.Helper()
	valueInfo := func(v tensorIO) []byte {
		var shape []byte
		for _, d := range []string{"batch", "sequence"} {
			shape = protowire.AppendTag(shape, 1, protowire.BytesType) // dim
			shape = protowire.AppendBytes(shape, protowire.AppendString(protowire.AppendTag(nil, 2, protowire.BytesType), d))
		}
		tensor := protowire.AppendTag(nil, 1, protowire.VarintType) // elem_type
		tensor = protowire.AppendVarint(tensor, v.elem)
		tensor = protowire.AppendTag(tensor, 2, protowire.BytesType) // shape
		tensor = protowire.AppendBytes(tensor, shape)
		typ := protowire.AppendTag(nil, 1, protowire.BytesType) // tensor_type
		typ = protowire.AppendBytes(typ, tensor)
		b := protowire.AppendTag(nil, 1, protowire.BytesType) // name
		b = protowire.AppendString(b, v.name)
		b = protowire.AppendTag(b, 2, protowire.BytesType) // type
		return protowire.AppendBytes(b, typ)
	}
	var g []byte
	for i, o := range outs {
		n := protowire.AppendTag(nil, 1, protowire.BytesType) // input
		n = protowire.AppendString(n, ins[i].name)
		n = protowire.AppendTag(n, 2, protowire.BytesType) // output
		n = protowire.AppendString(n, o.name)
		n = protowire.AppendTag(n, 4, protowire.BytesType) // op_type
		n = protowire.AppendString(n, "Identity")
		g = protowire.AppendTag(g, 1, protowire.BytesType) // node
		g = protowire.AppendBytes(g, n)
	}
	g = protowire.AppendTag(g, 2, protowire.BytesType) // name
	g = protowire.AppendString(g, "identity")
	for _, v := range ins {
		g = protowire.AppendTag(g, 11, protowire.BytesType)
		g = protowire.AppendBytes(g, valueInfo(v))
	}
	for _, v := range outs {
		g = protowire.AppendTag(g, 12, protowire.BytesType)
		g = protowire.AppendBytes(g, valueInfo(v))
	}
	m := protowire.AppendTag(nil, 1, protowire.VarintType) // ir_version
	m = protowire.AppendVarint(m, 8)
	opset := protowire.AppendTag(nil, 2, protowire.VarintType) // version
	opset = protowire.AppendVarint(opset, 14)
	m = protowire.AppendTag(m, 8, protowire.BytesType) // opset_import
	m = protowire.AppendBytes(m, opset)
	m = protowire.AppendTag(m, 7, protowire.BytesType) // graph
	m = protowire.AppendBytes(m, g)
	if err := os.WriteFile(path, m, 0o644); err != nil {
		t.Fatal(err)
	}
}

// modelDir makes a directory with the tiny model's tokenizer.json and
// config.json, then lets edit change it.
func modelDir(t *testing.T, edit func(dir string)) string {
	t.Helper()
	src := model(t, "tiny")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "config.json", "model.onnx"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(dir)
	return dir
}

// TestOpenModelErrors: every problem with a model directory is one
// sentence, wrapped in ErrConfig, saying what was expected and found.
func TestOpenModelErrors(t *testing.T) {
	ids, mask := tensorIO{"input_ids", onnxInt64}, tensorIO{"attention_mask", onnxInt64}
	cases := []struct {
		name string
		dir  func(t *testing.T) string
		want []string // substrings: what was expected and what was found
	}{
		{"missing dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") },
			[]string{"model folder", "nope", "not found", "Hub id"}},
		{"file instead of dir", func(t *testing.T) string { return modelDir(t, func(string) {}) + "/config.json" },
			[]string{"model folder", "not found"}},
		{"missing model.onnx", func(t *testing.T) string {
			return modelDir(t, func(d string) { os.Remove(filepath.Join(d, "model.onnx")) })
		}, []string{"holds neither model.onnx nor weights", "save_pretrained"}},
		{"invalid config.json", func(t *testing.T) string {
			return modelDir(t, func(d string) { writeFile(t, filepath.Join(d, "config.json"), "{max_position") })
		}, []string{"config.json is not valid JSON"}},
		{"unreadable config.json", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				os.Remove(filepath.Join(d, "config.json"))
				if err := os.Mkdir(filepath.Join(d, "config.json"), 0o755); err != nil {
					t.Fatal(err)
				}
			})
		}, []string{"config.json cannot be read", "is a directory"}},
		{"not an ONNX file", func(t *testing.T) string {
			return modelDir(t, func(d string) { writeFile(t, filepath.Join(d, "model.onnx"), "not a model") })
		}, []string{"is not a model ONNX Runtime can load"}},
		{"outputs are not start/end logits", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				identityModel(t, filepath.Join(d, "model.onnx"), []tensorIO{ids, mask}, []tensorIO{{"logits", onnxInt64}, {"mask_out", onnxInt64}})
			})
		}, []string{"expected outputs start_logits and end_logits", "found logits", "mask_out"}},
		{"integer logits", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				identityModel(t, filepath.Join(d, "model.onnx"), []tensorIO{ids, mask}, []tensorIO{{"start_logits", onnxInt64}, {"end_logits", onnxInt64}})
			})
		}, []string{`output "start_logits"`, "expected float32 or float16"}},
		{"unknown input", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				identityModel(t, filepath.Join(d, "model.onnx"), []tensorIO{ids, {"pixel_values", onnxInt64}}, []tensorIO{{"start_logits", onnxInt64}})
			})
		}, []string{`input "pixel_values"`, "expected input_ids, attention_mask", "found input_ids"}},
		{"float input", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				identityModel(t, filepath.Join(d, "model.onnx"), []tensorIO{{"input_ids", onnxFloat}, mask}, []tensorIO{{"start_logits", onnxFloat}})
			})
		}, []string{`input "input_ids"`, "expected int64 or int32"}},
		{"no attention mask", func(t *testing.T) string {
			return modelDir(t, func(d string) {
				identityModel(t, filepath.Join(d, "model.onnx"), []tensorIO{ids}, []tensorIO{{"start_logits", onnxInt64}})
			})
		}, []string{"must take input_ids and attention_mask", "found input_ids"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			m, err := OpenModel(dir)
			if err == nil {
				t.Fatalf("OpenModel succeeded: %+v", m)
			}
			msg := err.Error()
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error is not ErrConfig: %v", err)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
