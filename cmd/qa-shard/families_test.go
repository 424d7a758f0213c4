package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testmodel"
)

// familyModel is the tiny model in one family's layout (RoBERTa, XLM-R,
// DeBERTa-v3, ALBERT): its real tokenizer, its export's signature.
func familyModel(t *testing.T, family string) string {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("test setup: %v", setupErr)
	}
	if familiesErr != nil {
		t.Fatalf("family models: %v", familiesErr)
	}
	return filepath.Join(modelsDir, "tiny-"+family)
}

// TestFamiliesBatchedEqualsSingle: for every family, pooled and padded
// batches give the logits and answers of one window at a time, and every
// answer's offsets cut its text out of the context.
func TestFamiliesBatchedEqualsSingle(t *testing.T) {
	for _, f := range testmodel.Families {
		t.Run(f.Name, func(t *testing.T) { checkBatchedEqualsSingle(t, familyModel(t, f.Name)) })
	}
}

// TestFamiliesQuantize: qa-shard quantize takes every family's export,
// and the int8 model answers the corpus.
func TestFamiliesQuantize(t *testing.T) {
	for _, f := range testmodel.Families {
		t.Run(f.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "int8")
			if code, stderr := runQuantize(t, "--model", familyModel(t, f.Name), "--out", out, "--ort-lib", ortLib); code != exitOK {
				t.Fatalf("quantize exit %d:\n%s", code, stderr)
			}
			answers := filepath.Join(t.TempDir(), "answers.jsonl")
			code, stderr := runCLI(t, "--devices", "cpu:1", "--model", out, "--input", writeCorpus(t, 20, 3),
				"--question", "Who founded the company?", "--output", answers)
			if code != exitOK {
				t.Fatalf("int8 run exit %d:\n%s", code, stderr)
			}
			if recs := readRecords(t, answers); len(recs) != 20+4 {
				t.Fatalf("%d answers for 20 documents (4 with a second question)", len(recs))
			}
		})
	}
}

// TestTokenizerLargerThanModel: a tokenizer whose ids reach past the
// model's embedding table is refused at start (exit 2), naming both files:
// config.json's vocab_size when it gives one, else the graph's word
// embedding table.
func TestTokenizerLargerThanModel(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"config.json", `"vocab_size": 30522`, "vocab_size 30522"},
		{"graph", `"vocab_size": 0`, "model.onnx has 50262 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := shrunkVocabModel(t, tc.config)
			code, stderr := runCLI(t, "--devices", "cpu:1", "--model", dir, "--input", writeCorpus(t, 3, 1),
				"--question", "Who?", "--output", filepath.Join(t.TempDir(), "a.jsonl"))
			if code != exitUsage || !strings.Contains(stderr, "tokenizer.json") || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d naming tokenizer.json and %q:\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
}

// shrunkVocabModel copies the RoBERTa-layout model with config.json's
// vocab_size replaced; for the graph case its tokenizer gets an added
// token past the embedding table instead.
func shrunkVocabModel(t *testing.T, vocab string) string {
	t.Helper()
	src := familyModel(t, "roberta")
	dir := t.TempDir()
	for _, name := range []string{"model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "config.json":
			b = []byte(strings.Replace(string(b), `"vocab_size": 50262`, vocab, 1))
			if !strings.Contains(string(b), vocab) {
				t.Fatalf("config.json has no vocab_size 50262 to replace:\n%s", b)
			}
		case "tokenizer.json":
			if vocab == `"vocab_size": 0` {
				extra := `{"id":60000,"content":"<extra>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},`
				b = []byte(strings.Replace(string(b), `"added_tokens": [`, `"added_tokens": [`+extra, 1))
				if !strings.Contains(string(b), "<extra>") {
					t.Fatal("tokenizer.json: no added_tokens list to extend")
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
