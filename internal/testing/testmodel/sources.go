package testmodel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"qa-shard/internal/qagraph"
)

// The generated models are built by package qagraph, the builder qa-shard
// builds checkpoints with: one way a graph is written. Their weights come
// from a Source here: seeded (seededSource) or trained (Weights).

// graphConfig is the BERT config of a preset, as qagraph reads it.
func graphConfig(p Preset) (qagraph.Config, error) {
	b, err := json.Marshal(map[string]any{"model_type": "bert", "architectures": []string{"BertForQuestionAnswering"},
		"vocab_size": p.VocabSize, "hidden_size": p.Hidden, "num_hidden_layers": p.Layers, "num_attention_heads": p.Heads,
		"intermediate_size": p.Intermediate, "max_position_embeddings": p.MaxPositions, "type_vocab_size": p.TypeVocab,
		"hidden_act": "gelu", "layer_norm_eps": layerNormEps})
	if err != nil {
		return qagraph.Config{}, err
	}
	return qagraph.ParseConfig("config.json", b)
}

// seededSource gives every weight seeded values, by its name, as BERT
// initialises them: embeddings and Linear weights normal with std (the
// [PAD] row of the word embeddings zero), biases zero, LayerNorm scales
// one; the head wider (headStd), so an untrained model's logits spread
// over a few units and span decoding picks distinct, stable answers.
// Linear weights are drawn in the [in, out] layout the graph multiplies
// by, so a generated model's bytes do not depend on how a Linear is
// stored in a checkpoint.
type seededSource struct {
	seed     uint64
	std      float32
	headStd  float32
	infinite []int // word embedding rows made +Inf
}

func (s seededSource) Weight(name string, want []int64) (qagraph.Weight, error) {
	n := 1
	for _, d := range want {
		n *= int(d)
	}
	var fill func(io.Writer) error
	switch {
	case strings.HasSuffix(name, "LayerNorm.weight"):
		fill = fillConst(n, 1)
	case strings.HasSuffix(name, ".bias"):
		fill = fillConst(n, 0)
	case strings.HasSuffix(name, "word_embeddings.weight"):
		fill = infiniteRows(fillNormal(seedFor(s.seed, name), n, s.std, int(want[1])), s.infinite, int(want[1]))
	case strings.HasSuffix(name, "_embeddings.weight"):
		fill = fillNormal(seedFor(s.seed, name), n, s.std, 0)
	default: // a Linear weight, [out, in] in a checkpoint
		std := s.std
		if name == "qa_outputs.weight" {
			std = s.headStd
		}
		inOut := fillNormal(seedFor(s.seed, name), n, std, 0)
		return qagraph.Weight{Shape: want, Write: func(w io.Writer, transpose bool) error {
			if transpose {
				return inOut(w)
			}
			return transposed(inOut, int(want[1]), int(want[0]))(w)
		}}, nil
	}
	return qagraph.Weight{Shape: want, Write: func(w io.Writer, _ bool) error { return fill(w) }}, nil
}

// transposed writes the [cols, rows] transpose of the [rows, cols]
// float32 matrix fill writes.
func transposed(fill func(io.Writer) error, rows, cols int) func(io.Writer) error {
	return func(w io.Writer) error {
		var b bytesBuffer
		if err := fill(&b); err != nil {
			return err
		}
		out := make([]byte, len(b))
		for r := range rows {
			for c := range cols {
				copy(out[4*(c*rows+r):], b[4*(r*cols+c):4*(r*cols+c)+4])
			}
		}
		_, err := w.Write(out)
		return err
	}
}

type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// Weight makes trained Weights a qagraph.Source (their names and layouts
// are transformers').
func (w *Weights) Weight(name string, want []int64) (qagraph.Weight, error) {
	t, ok := w.tensors[name]
	if !ok {
		return qagraph.Weight{}, fmt.Errorf("%w: the graph needs %s, which the file lacks", ErrWeights, name)
	}
	if !slices.Equal(t.shape, want) {
		return qagraph.Weight{}, fmt.Errorf("%w: %s has shape %v, the graph needs %v", ErrWeights, name, t.shape, want)
	}
	if w.used == nil {
		w.used = map[string]bool{}
	}
	w.used[name] = true
	return qagraph.Weight{Shape: t.shape, Write: func(out io.Writer, transpose bool) error {
		vals := t.data
		if transpose {
			var err error
			if vals, err = w.take(name, true, want[1], want[0]); err != nil {
				return err
			}
		}
		_, err := out.Write(float32Bytes(vals...))
		return err
	}}, nil
}

// Unused lists the tensors no graph took: a file of another architecture.
func (w *Weights) Unused() []string {
	var left []string
	for _, n := range w.names() {
		if !w.used[n] {
			left = append(left, n)
		}
	}
	return left
}

func float32Bytes(vals ...float32) []byte {
	b := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}
