// Package testfixtures generates, for tests, the model directories they
// run on, with package testmodel (the generator the tools use): the tiny
// model and its signature variants from the offline vocabulary, the
// trained demo model ("demo"), and the family layouts of the tiny model and
// of the demo models trained with other tokenizers (GenerateFamilies).
package testfixtures

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testmodel"
)

// Variants are the generated model folders by name: the full optimum-like
// signature, one without token_type_ids, and one with float16 logits.
var Variants = map[string][]testmodel.Option{
	"tiny":        nil,
	"tiny-notype": {testmodel.WithoutTokenTypeIDs()},
	"tiny-fp16":   {testmodel.Float16Logits()},
}

// Generate writes every variant, and the demo model, under dir.
func Generate(dir string) error {
	vocab, err := bertVocab()
	if err != nil {
		return err
	}
	for name, opts := range Variants {
		if err := testmodel.Generate(filepath.Join(dir, name), testmodel.Tiny, vocab, opts...); err != nil {
			return fmt.Errorf("generating %s: %w", name, err)
		}
	}
	return demo(filepath.Join(dir, "demo"), vocab)
}

// GenerateTiny writes the tiny model with opts into dir: the variants a
// test needs for itself (a model whose logits are not finite, say).
func GenerateTiny(dir string, opts ...testmodel.Option) error {
	vocab, err := bertVocab()
	if err != nil {
		return err
	}
	return testmodel.Generate(dir, testmodel.Tiny, vocab, opts...)
}

// bertVocab is the bert-base-uncased vocabulary in id order.
func bertVocab() ([]string, error) {
	vocabPath, err := testenv.VocabJSON()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(vocabPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return testmodel.ConvertVocab(f)
}

// GenerateFamilies writes the tiny model in every family layout
// (testmodel.Families) under dir as "tiny-<family>", around the family
// tokenizers `make tokenizer-fixtures` builds, and the demo models trained
// with those tokenizers (DemoFamilies).
func GenerateFamilies(dir string) error {
	toks, err := testenv.TokenizersDir()
	if err != nil {
		return err
	}
	for _, f := range testmodel.Families {
		if err := testmodel.GenerateFamily(filepath.Join(dir, "tiny-"+f.Name), testmodel.Tiny, f, filepath.Join(toks, f.Name)); err != nil {
			return fmt.Errorf("generating the %s model: %w", f.Name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(DemoFamilies)) {
		if err := demoFamily(filepath.Join(dir, name), name, DemoFamilies[name], toks); err != nil {
			return err
		}
	}
	return nil
}

// DemoFamilies are the demo models trained with a family's tokenizer
// (internal/testing/testmodel/<name>, `make train-bpe` and `make train-unigram`), by name:
// RoBERTa's byte-level BPE and ALBERT's Unigram.
var DemoFamilies = map[string]string{"demo-bpe": "roberta", "demo-unigram": "albert"}

// demoFamily generates one of DemoFamilies in its family's export layout.
func demoFamily(dir, name, family, toks string) error {
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	w, err := testmodel.ReadWeights(filepath.Join(root, "internal", "testing", "testmodel", name, "model.safetensors"))
	if err != nil {
		return fmt.Errorf("the %s model: %w", name, err)
	}
	p, err := w.Preset(name)
	if err != nil {
		return fmt.Errorf("the %s model: %w", name, err)
	}
	i := slices.IndexFunc(testmodel.Families, func(f testmodel.Family) bool { return f.Name == family })
	if i < 0 {
		return fmt.Errorf("the %s model: no family %s", name, family)
	}
	if err := testmodel.GenerateFamily(dir, p, testmodel.Families[i], filepath.Join(toks, family), testmodel.WithWeights(w)); err != nil {
		return fmt.Errorf("generating the %s model: %w", name, err)
	}
	return nil
}

// demo generates the trained demo model (internal/testing/testmodel/demo) as "demo".
func demo(dir string, vocab []string) error {
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	w, err := testmodel.ReadWeights(filepath.Join(root, "internal", "testing", "testmodel", "demo", "model.safetensors"))
	if err != nil {
		return err
	}
	p, err := w.Preset("demo")
	if err != nil {
		return err
	}
	if err := testmodel.Generate(dir, p, vocab, testmodel.WithWeights(w)); err != nil {
		return fmt.Errorf("generating the demo model: %w", err)
	}
	return nil
}

// TokenizerJSON writes the bert-base-uncased tokenizer.json every
// generated model carries into dir and returns its path.
func TokenizerJSON(dir string) (string, error) {
	vocab, err := bertVocab()
	if err != nil {
		return "", err
	}
	b, err := testmodel.TokenizerJSON(vocab)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "tokenizer.json")
	return path, os.WriteFile(path, b, 0o644)
}

// Setup generates every variant in a temporary folder of t and returns it
// with the ONNX Runtime library tests load (worker.Init is the caller's:
// worker's own tests use this package); it fails t when either is missing.
func Setup(t testing.TB) (dir, ortLib string) {
	t.Helper()
	lib, err := testenv.ORTLib()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := Generate(dir); err != nil {
		t.Fatal(err)
	}
	return dir, lib
}

// DemoJapanese is the Japanese demo model's name (internal/testing/testmodel/demo-ja, `make
// train-ja`): BERT's layout around bert-base-japanese-v3's real vocabulary
// and the committed tokenizer_config.json (MeCab with ipadic).
const DemoJapanese = "demo-ja"

// GenerateJapanese writes the Japanese demo model under dir as
// DemoJapanese and returns its folder: vocab.txt from the real
// bert-base-japanese-v3 folder (../shared/real-tokenizers, never
// committed), tokenizer_config.json from internal/testing/testmodel/demo-ja, no
// tokenizer.json, as optimum exports a BertJapaneseTokenizer.
func GenerateJapanese(dir string) (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	realDir, err := testenv.RealTokenizer("bert-base-japanese-v3")
	if err != nil {
		return "", err
	}
	tok := filepath.Join(dir, DemoJapanese+"-tokenizer")
	if err := os.MkdirAll(tok, 0o755); err != nil {
		return "", err
	}
	for src, name := range map[string]string{
		filepath.Join(realDir, "vocab.txt"): "vocab.txt",
		filepath.Join(root, "internal", "testing", "testmodel", DemoJapanese, "tokenizer_config.json"): "tokenizer_config.json",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("the %s model: %w", DemoJapanese, err)
		}
		if err := os.WriteFile(filepath.Join(tok, name), b, 0o644); err != nil {
			return "", fmt.Errorf("the %s model: %w", DemoJapanese, err)
		}
	}
	w, err := testmodel.ReadWeights(filepath.Join(root, "internal", "testing", "testmodel", DemoJapanese, "model.safetensors"))
	if err != nil {
		return "", fmt.Errorf("the %s model: %w", DemoJapanese, err)
	}
	p, err := w.Preset(DemoJapanese)
	if err != nil {
		return "", fmt.Errorf("the %s model: %w", DemoJapanese, err)
	}
	out := filepath.Join(dir, DemoJapanese)
	if err := testmodel.GenerateFamily(out, p, testmodel.BERT, tok, testmodel.WithWeights(w)); err != nil {
		return "", fmt.Errorf("generating the %s model: %w", DemoJapanese, err)
	}
	return out, nil
}

// GenerateCheckpoints writes every testmodel.Checkpoints folder under dir
// (testmodel.GenerateCheckpoints) around the family tokenizers and the
// bert-base-uncased vocabulary.
func GenerateCheckpoints(dir string) error {
	toks, err := testenv.TokenizersDir()
	if err != nil {
		return err
	}
	vocab, err := bertVocab()
	if err != nil {
		return err
	}
	return testmodel.GenerateCheckpoints(dir, toks, vocab)
}
