// Package testmodel generates a BERT-for-question-answering model directory
// shaped like a Hugging Face optimum ONNX export (model.onnx, config.json and
// the tokenizer files), with seeded random weights. The end-to-end tests and
// benchmarks run the real ONNX Runtime on it without downloading a model:
// the answers are meaningless, but every tensor name, type, shape and
// operator is what a fine-tuned checkpoint exported by optimum presents.
package testmodel

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"qa-shard/internal/qagraph"
)

// Preset fixes the architecture and the weight seed of a generated model.
type Preset struct {
	Name         string
	VocabSize    int // 0 takes the length of the vocabulary given to Generate
	Hidden       int
	Layers       int
	Heads        int
	Intermediate int
	MaxPositions int
	TypeVocab    int
	Seed         uint64
}

// Tiny is small enough to load and run in a unit test in milliseconds; its
// embedding table (the bert-base-uncased vocabulary) dominates its ~4 MB.
var Tiny = Preset{
	Name: "tiny", VocabSize: 30522, Hidden: 32, Layers: 2, Heads: 2,
	Intermediate: 64, MaxPositions: 512, TypeVocab: 2, Seed: 0x7e57_0001,
}

// Small has the dimensions of the small BERT-QA models benchmarks on a
// CPU care about (4 layers of 256, ~60 MB with the embedding table): the
// shape of batch that runs fastest differs from bert-base's.
var Small = Preset{
	Name: "small", VocabSize: 30522, Hidden: 256, Layers: 4, Heads: 4,
	Intermediate: 1024, MaxPositions: 512, TypeVocab: 2, Seed: 0x7e57_0003,
}

// Base has bert-base dimensions (~110M parameters, ~440 MB) for benchmarks
// that need realistic compute; generate it on demand, never commit it.
var Base = Preset{
	Name: "base", VocabSize: 30522, Hidden: 768, Layers: 12, Heads: 12,
	Intermediate: 3072, MaxPositions: 512, TypeVocab: 2, Seed: 0x7e57_0002,
}

// Large has bert-large dimensions (24 layers of 1024, 16 heads,
// intermediate 4096: ~335M parameters, ~1.34 GB), the size of the
// SQuAD-fine-tuned checkpoints users run (the README's
// bert-large-uncased-whole-word-masking-finetuned-squad); generate it on
// demand for benchmarks, never commit it.
var Large = Preset{
	Name: "large", VocabSize: 30522, Hidden: 1024, Layers: 24, Heads: 16,
	Intermediate: 4096, MaxPositions: 512, TypeVocab: 2, Seed: 0x7e57_0004,
}

// Presets are the generated sizes, smallest first.
var Presets = []Preset{Tiny, Small, Base, Large}

// PresetByName returns one of Presets by its Name.
func PresetByName(name string) (Preset, error) {
	names := make([]string, len(Presets))
	for i, p := range Presets {
		if strings.EqualFold(name, p.Name) {
			return p, nil
		}
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want %s)", name, strings.Join(names, ", "))
}

func (p Preset) validate() error {
	switch {
	case p.VocabSize <= 0 || p.Hidden <= 0 || p.Layers < 0 || p.Heads <= 0 ||
		p.Intermediate <= 0 || p.MaxPositions <= 0 || p.TypeVocab <= 0:
		return fmt.Errorf("preset %q: every dimension must be positive", p.Name)
	case p.Hidden%p.Heads != 0:
		return fmt.Errorf("preset %q: hidden size %d is not a multiple of %d heads", p.Name, p.Hidden, p.Heads)
	}
	return nil
}

// Option changes the exported signature of the generated model.
type Option func(*options)

type options struct {
	noTokenTypes bool
	fp16Logits   bool
	weights      *Weights
	std          float32 // of the random weights; 0: initStd
	infinite     []int   // token ids whose word embedding is +Inf
}

// WithoutTokenTypeIDs drops the token_type_ids input, as DistilBERT-style
// exports do; the runtime must then feed only input_ids and attention_mask.
// The model behaves as the full one given token_type_ids of all zeros.
func WithoutTokenTypeIDs() Option { return func(o *options) { o.noTokenTypes = true } }

// Float16Logits makes start_logits and end_logits float16, as in exports
// optimized for GPUs with --fp16; the weights and arithmetic stay float32.
func Float16Logits() Option { return func(o *options) { o.fp16Logits = true } }

// WithWeights builds the model around trained weights instead of seeded
// random ones; the preset must be the weights' own (Weights.Preset).
func WithWeights(w *Weights) Option { return func(o *options) { o.weights = w } }

const (
	layerNormEps = 1e-12 // BertConfig.layer_norm_eps
	initStd      = 0.02  // BertConfig.initializer_range
)

// WriteModel streams the ONNX model alone to w and returns the bytes
// written, built by package qagraph (qa-shard's builder) around p's
// seeded weights (or WithWeights' trained ones). Weights are generated
// while writing, so memory stays small even for Base. The output depends
// only on p and opts: byte-identical each run.
func WriteModel(w io.Writer, p Preset, opts ...Option) (int64, error) {
	if err := p.validate(); err != nil {
		return 0, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := graphConfig(p)
	if err != nil {
		return 0, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	var src qagraph.Source = seededSource{seed: p.Seed, std: o.initStdOf(), headStd: o.headStd(p), infinite: o.infinite}
	if o.weights != nil {
		src = o.weights
	}
	var gopts []qagraph.Option
	if o.noTokenTypes {
		gopts = append(gopts, qagraph.WithoutTokenTypeIDs())
	}
	if o.fp16Logits {
		gopts = append(gopts, qagraph.Float16Logits())
	}
	n, err := qagraph.WriteModel(w, cfg, src, gopts...)
	if errors.Is(err, qagraph.ErrWeights) {
		err = fmt.Errorf("%w: %w", ErrWeights, err)
	}
	if err != nil {
		return n, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	return n, nil
}

// Files lists the names Generate writes into a model directory.
func Files() []string {
	return []string{"config.json", "model.onnx", "special_tokens_map.json",
		"tokenizer.json", "tokenizer_config.json", "vocab.txt"}
}

// Generate writes a complete model directory into dir (created if needed):
// model.onnx, config.json, tokenizer.json, vocab.txt, special_tokens_map.json
// and tokenizer_config.json. vocab is the WordPiece vocabulary in id order
// (see ConvertVocab); its length must match p.VocabSize unless that is 0.
// Each file is written under a temporary name and renamed only after all of
// them were written, so a failure never leaves a half-written file behind.
func Generate(dir string, p Preset, vocab []string, opts ...Option) error {
	if p.VocabSize == 0 {
		p.VocabSize = len(vocab)
	}
	if len(vocab) != p.VocabSize {
		return fmt.Errorf("generate %s: vocabulary has %d tokens, preset %s needs %d",
			dir, len(vocab), p.Name, p.VocabSize)
	}
	if err := writeDir(dir, p, vocab, opts); err != nil {
		return fmt.Errorf("generate %s: %w", dir, err)
	}
	return nil
}
