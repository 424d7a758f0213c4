package testmodel

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/qagraph"
)

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
}

func TestGenerate(t *testing.T) {
	requireORT(t)
	vocab := loadBERTVocab(t)
	dir := filepath.Join(t.TempDir(), "tiny") // Generate must create it
	if err := Generate(dir, Tiny, vocab, WithoutTokenTypeIDs()); err != nil {
		t.Fatal(err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"config.json", "model.onnx", "special_tokens_map.json",
		"tokenizer.json", "tokenizer_config.json", "vocab.txt"}
	if !slices.Equal(names, want) { // ReadDir sorts; temporaries would show
		t.Fatalf("directory holds %v, want %v", names, want)
	}
	if !slices.Equal(Files(), want) {
		t.Errorf("Files() = %v, want %v", Files(), want)
	}

	var cfg map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &cfg)
	for key, val := range map[string]any{
		"model_type": "bert", "hidden_act": "gelu", "hidden_size": 32.0,
		"num_attention_heads": 2.0, "num_hidden_layers": 2.0, "intermediate_size": 64.0,
		"max_position_embeddings": 512.0, "vocab_size": 30522.0, "type_vocab_size": 2.0,
		"layer_norm_eps": 1e-12, "pad_token_id": 0.0,
	} {
		if cfg[key] != val {
			t.Errorf("config.json %s = %v, want %v", key, cfg[key], val)
		}
	}
	if arch, _ := cfg["architectures"].([]any); len(arch) != 1 || arch[0] != "BertForQuestionAnswering" {
		t.Errorf("config.json architectures = %v", cfg["architectures"])
	}

	var tc struct {
		MaxLen int                                 `json:"model_max_length"`
		Lower  bool                                `json:"do_lower_case"`
		Class  string                              `json:"tokenizer_class"`
		Added  map[string]struct{ Content string } `json:"added_tokens_decoder"`
	}
	readJSON(t, filepath.Join(dir, "tokenizer_config.json"), &tc)
	if tc.MaxLen != 512 || !tc.Lower || tc.Class != "BertTokenizer" ||
		tc.Added["0"].Content != "[PAD]" || tc.Added["102"].Content != "[SEP]" {
		t.Errorf("tokenizer_config.json = %+v", tc)
	}
	var stm map[string]string
	readJSON(t, filepath.Join(dir, "special_tokens_map.json"), &stm)
	if stm["cls_token"] != "[CLS]" || stm["unk_token"] != "[UNK]" || len(stm) != 5 {
		t.Errorf("special_tokens_map.json = %v", stm)
	}

	txt, err := os.ReadFile(filepath.Join(dir, "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")
	if !slices.Equal(lines, vocab) {
		t.Errorf("vocab.txt has %d lines that do not match the %d-token vocabulary", len(lines), len(vocab))
	}
	tok, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if wantTok, err := TokenizerJSON(vocab); err != nil || !bytes.Equal(tok, wantTok) {
		t.Errorf("tokenizer.json is not TokenizerJSON(vocab) (err %v)", err)
	}

	// model.onnx is exactly the streamed model, and the options reached it.
	var model bytes.Buffer
	if _, err := WriteModel(&model, Tiny, WithoutTokenTypeIDs()); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, model.Bytes()) {
		t.Errorf("model.onnx differs from WriteModel's output")
	}
	ins, _, err := ort.GetInputOutputInfo(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 {
		t.Errorf("WithoutTokenTypeIDs did not reach model.onnx: inputs %v", ins)
	}
}

// TestGenerateTwiceIdentical: regenerating a directory overwrites it with
// byte-identical files, so generated models can be cached by content.
func TestGenerateTwiceIdentical(t *testing.T) {
	vocab := loadBERTVocab(t)
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b, a} {
		if err := Generate(dir, Tiny, vocab); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"model.onnx", "config.json", "tokenizer.json", "vocab.txt"} {
		x, errA := os.ReadFile(filepath.Join(a, name))
		y, errB := os.ReadFile(filepath.Join(b, name))
		if errA != nil || errB != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two generations (%v, %v)", name, errA, errB)
		}
	}
}

func TestGenerateRejectsWrongVocab(t *testing.T) {
	dir := t.TempDir()
	err := Generate(dir, Tiny, []string{"[PAD]", "[UNK]"})
	if err == nil || !strings.Contains(err.Error(), "30522") {
		t.Fatalf("short vocabulary: err = %v, want a size mismatch", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed Generate left %d files behind", len(entries))
	}
}

func TestPresetByName(t *testing.T) {
	for name, want := range map[string]Preset{"tiny": Tiny, "BASE": Base, "large": Large} {
		if got, err := PresetByName(name); err != nil || got != want {
			t.Errorf("PresetByName(%q) = %v, %v", name, got.Name, err)
		}
	}
	if _, err := PresetByName("huge"); err == nil || !strings.Contains(err.Error(), "large") {
		t.Errorf("unknown preset: %v, want an error naming the presets", err)
	}
}

// TestLargeIsBertLarge: the large preset has bert-large's dimensions, and
// its graph takes exactly the parameters of transformers'
// BertForQuestionAnswering at that size (334,094,338, as
// bert-large-uncased-whole-word-masking-finetuned-squad), without writing
// its 1.3 GB.
func TestLargeIsBertLarge(t *testing.T) {
	p := Large
	if p.Layers != 24 || p.Hidden != 1024 || p.Heads != 16 || p.Intermediate != 4096 || p.VocabSize != 30522 {
		t.Fatalf("large preset %+v, want 24 layers of 1024, 16 heads, intermediate 4096, vocabulary 30522", p)
	}
	if n := params(p); n != 334_094_338 {
		t.Fatalf("%d parameters by hand, want 334,094,338", n)
	}
	cfg, err := graphConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := qagraph.Specs(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var floats int
	for _, s := range specs {
		floats += tensorElems(s.Shape)
	}
	if floats != params(p) {
		t.Errorf("the graph's float32 tensors hold %d values, want the %d parameters", floats, params(p))
	}
}

// BenchmarkGenerateBase measures weight generation and encoding of the
// bert-base-sized model (~440 MB), without disk I/O.
func BenchmarkGenerateBase(b *testing.B) {
	for b.Loop() {
		n, err := WriteModel(io.Discard, Base)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

// TestGenerateFamilySlowFolder: a tokenizer folder without tokenizer.json
// (vocab.txt and tokenizer_config.json, as optimum exports a Japanese
// BERT) is carried over as it is, the vocabulary sized by vocab.txt's
// lines; without its tokenizer_config.json it is refused.
func TestGenerateFamilySlowFolder(t *testing.T) {
	requireORT(t)
	vocab := loadBERTVocab(t)[:1000]
	tok := t.TempDir()
	cfg := []byte(`{"tokenizer_class": "BertTokenizer"}`)
	if err := os.WriteFile(filepath.Join(tok, "vocab.txt"), []byte(strings.Join(vocab, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := GenerateFamily(dir, Tiny, BERT, tok); err == nil || !strings.Contains(err.Error(), "tokenizer_config.json") {
		t.Fatalf("no tokenizer_config.json: %v, want a refusal naming it", err)
	}
	if err := os.WriteFile(filepath.Join(tok, "tokenizer_config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := GenerateFamily(dir, Tiny, BERT, tok); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"config.json", "model.onnx", "tokenizer_config.json", "vocab.txt"}; !slices.Equal(names, want) {
		t.Fatalf("directory holds %v, want %v", names, want)
	}
	var c map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &c)
	if c["vocab_size"] != 1000.0 || c["model_type"] != "bert" || c["type_vocab_size"] != 2.0 {
		t.Fatalf("config.json %v: want vocab_size 1000, model_type bert, two token types", c)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json")); err != nil || !bytes.Equal(b, cfg) {
		t.Fatalf("tokenizer_config.json not carried over: %q, %v", b, err)
	}
}
