package journal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/journal"
)

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 1
	return c
}

func TestFingerprintModel(t *testing.T) {
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
	want, err := journal.FingerprintModel(write(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := journal.FingerprintModel(write(tt.files))
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("FingerprintModel = %s, base %s, want same=%v", got, want, tt.same)
			}
		})
	}
	for _, missing := range []string{"model.onnx", "tokenizer.json"} {
		if _, err := journal.FingerprintModel(write(with(map[string]string{missing: ""}))); err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("without %s: FingerprintModel = %v, want an error naming it", missing, err)
		}
	}
}

func TestFingerprintValue(t *testing.T) {
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
	want, err := journal.FingerprintValue(ref)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(want, "sha256=") || len(want) != len("sha256=")+64 {
		t.Errorf("FingerprintValue = %q, want sha256=<64 hex>", want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := journal.FingerprintValue(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("FingerprintValue = %s, reference %s, want same=%v", got, want, tt.same)
			}
		})
	}
	// Questions are a list: their order is meaningful (it is the output's).
	a, _ := journal.FingerprintValue([]string{"who?", "when?"})
	b, _ := journal.FingerprintValue([]string{"when?", "who?"})
	if a == b {
		t.Error("question lists in another order have the same fingerprint")
	}
	if _, err := journal.FingerprintValue(make(chan int)); err == nil {
		t.Error("FingerprintValue of a channel succeeded")
	}
}

// TestSettingsChangesNamed: a mismatch of settings names each changed
// one with its old and new value.
func TestSettingsChangesNamed(t *testing.T) {
	old := journal.Fingerprint{Settings: "a", SettingsText: `{"doc-stride":128,"top-k":1,"gone":true}`}
	now := journal.Fingerprint{Settings: "b", SettingsText: `{"doc-stride":128,"top-k":3,"max-line-bytes":1024}`}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	if _, err := journal.Create(out, old); err != nil {
		t.Fatal(err)
	}
	_, _, openErr := journal.Open(out, now)
	if openErr == nil {
		t.Fatal("resume with other settings accepted")
	}
	err := openErr.Error()
	for _, want := range []string{"--top-k was 1, now 3", "--gone was true, and is no longer a setting", "--max-line-bytes is new (now 1024)"} {
		if !strings.Contains(err, want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err, "doc-stride") {
		t.Errorf("%q names a setting that did not change", err)
	}
}
