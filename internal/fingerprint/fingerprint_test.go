package fingerprint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/readstate"
)

func TestModel(t *testing.T) {
	base := map[string]string{"model.onnx": "graph", "tokenizer.json": `{"v":1}`, "config.json": `{"h":32}`}
	with := func(changes map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range changes {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	tests := []struct {
		name  string
		files map[string]string
		same  bool // same fingerprint as base
	}{
		{"identical", with(nil), true},
		{"an unrelated file", with(map[string]string{"README.md": "x", "vocab.txt": "y"}), true},
		{"model byte", with(map[string]string{"model.onnx": "grapH"}), false},
		{"tokenizer", with(map[string]string{"tokenizer.json": `{"v":2}`}), false},
		{"config", with(map[string]string{"config.json": `{"h":64}`}), false},
		{"no config", with(map[string]string{"config.json": ""}), false},
		{"external data", with(map[string]string{"model.onnx_data": "w"}), false},
		{"a byte moved between files", with(map[string]string{"model.onnx": "grap", "tokenizer.json": `h{"v":1}`}), false},
	}
	write := func(files map[string]string) string {
		dir := t.TempDir()
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	want, err := Model(write(base), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Model(write(tt.files), "")
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("Model = %s, base %s, want same=%v", got, want, tt.same)
			}
		})
	}
	if _, err := Model(write(with(map[string]string{"model.onnx": ""})), ""); err == nil || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("without model.onnx: Model = %v, want an error naming it", err)
	}
	// Without tokenizer.json the slow tokenizer's files decide the
	// tokenizer (a conversion): each one changes the fingerprint.
	slow := with(map[string]string{"tokenizer.json": "", "vocab.txt": "[CLS]\n"})
	a, err := Model(write(slow), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"vocab.txt", "tokenizer_config.json", "merges.txt", "spm.model"} {
		edited := map[string]string{}
		for k, v := range slow {
			edited[k] = v
		}
		edited[f] = "changed"
		if b, err := Model(write(edited), ""); err != nil || b == a {
			t.Errorf("without tokenizer.json, a changed %s: Model = %s (%v), want other than %s", f, b, err, a)
		}
	}
}

func TestValue(t *testing.T) {
	type settings struct {
		MaxSeqLen int     `json:"max_seq_len"`
		Stride    int     `json:"stride"`
		TopK      int     `json:"top_k"`
		Threshold float64 `json:"threshold"`
	}
	type reordered struct {
		Threshold float64 `json:"threshold"`
		TopK      int     `json:"top_k"`
		Stride    int     `json:"stride"`
		MaxSeqLen int     `json:"max_seq_len"`
	}
	ref := settings{384, 128, 1, 0.5}
	tests := []struct {
		name string
		v    any
		same bool
	}{
		{"the same struct", ref, true},
		{"a pointer to it", &ref, true},
		{"fields declared in another order", reordered{0.5, 1, 128, 384}, true},
		{"a map", map[string]any{"top_k": 1, "stride": 128, "threshold": 0.5, "max_seq_len": 384}, true},
		{"a map built in another order", map[string]any{"max_seq_len": 384, "threshold": 0.5, "stride": 128, "top_k": 1}, true},
		{"another value", settings{384, 64, 1, 0.5}, false},
		{"another float", settings{384, 128, 1, 0.25}, false},
		{"a missing key", map[string]any{"top_k": 1, "stride": 128, "threshold": 0.5}, false},
		{"an extra key", map[string]any{"top_k": 1, "stride": 128, "threshold": 0.5, "max_seq_len": 384, "x": 0}, false},
		{"a number as a string", map[string]any{"top_k": "1", "stride": 128, "threshold": 0.5, "max_seq_len": 384}, false},
	}
	want, err := value(ref)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(want, "sha256=") || len(want) != len("sha256=")+64 {
		t.Errorf("Value = %q, want sha256=<64 hex>", want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := value(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("Value = %s, reference %s, want same=%v", got, want, tt.same)
			}
		})
	}
	// Questions are a list: their order is meaningful (it is the output's).
	a, _ := value([]string{"who?", "when?"})
	b, _ := value([]string{"when?", "who?"})
	if a == b {
		t.Error("question lists in another order have the same fingerprint")
	}
	if _, err := value(make(chan int)); err == nil {
		t.Error("Value of a channel succeeded")
	}
}

// TestInput: names decide the input's fingerprint, sizes only when ranks
// split the files.
func TestInput(t *testing.T) {
	files := []File{{"a.jsonl", 10}, {"b.parquet", 20}}
	resized := []File{{"a.jsonl", 11}, {"b.parquet", 20}}
	renamed := []File{{"a.jsonl", 10}, {"c.parquet", 20}}
	if Input(files, false) != Input(resized, false) {
		t.Error("a size changed the fingerprint of a single process's input")
	}
	if Input(files, true) == Input(resized, true) {
		t.Error("a size did not change the fingerprint of a split input")
	}
	if Input(files, false) == Input(renamed, false) || Input(files, true) == Input(renamed, true) {
		t.Error("a name did not change the fingerprint")
	}
	if got := Input(files, true); !strings.HasPrefix(got, "files=2;bytes=30;sha256=") {
		t.Errorf("Input = %q, want files=2;bytes=30;sha256=...", got)
	}
}

// TestOf: the run's fingerprint takes each component from its own hash;
// standard input has neither a file list nor its text; a block is kept.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("m"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Name: "a.jsonl", Size: 10}, {Name: "b.jsonl", Size: 20}}
	block := &readstate.Block{Rank: 1, World: 2, From: 15, To: 30, Total: 30}
	fp, err := Of(Run{Files: files, Split: true, Block: block, Model: dir, Settings: map[string]int{"k": 1}, Questions: []string{"Who?"}})
	if err != nil {
		t.Fatal(err)
	}
	if fp.Input != Input(files, true) || fp.InputText != `{"a.jsonl":10,"b.jsonl":20}` || fp.Block != block ||
		fp.Settings == "" || fp.SettingsText != `{"k":1}` || fp.Questions == "" || fp.Model == "" {
		t.Errorf("Of = %+v", fp)
	}
	in, err := Of(Run{Stdin: true, Model: dir})
	if err != nil || in.Input != Stdin || in.InputText != "" {
		t.Errorf("Of(stdin) = %+v, %v", in, err)
	}
	if inputText(files, false) != `{"a.jsonl":true,"b.jsonl":true}` {
		t.Errorf("InputText without split = %s", inputText(files, false))
	}
}
