package qagraph

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestConfigRefusals: what the builder does not build is refused before
// any work, naming the field: an unknown model_type (listing those
// built), a head other than question answering, relative position
// embeddings, an unknown activation, DeBERTa's convolution layer.
func TestConfigRefusals(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{"model_type": "gpt2"}`, "bert, camembert, deberta-v2, distilbert, electra, roberta, xlm-roberta"},
		{`{"model_type": "bert", "architectures": ["BertForMaskedLM"]}`, "BertForQuestionAnswering"},
		{`{"model_type": "bert", "position_embedding_type": "relative_key"}`, `position_embedding_type "relative_key"`},
		{`{"model_type": "roberta", "hidden_act": "mish"}`, `hidden_act "mish"`},
		{`{"model_type": "deberta-v2", "conv_kernel_size": 3}`, "conv_kernel_size 3"},
		{`{"model_type": "deberta-v2", "pos_att_type": ["p2p"]}`, `pos_att_type "p2p"`},
		{`{"model_type": "bert", "hidden_size": 30, "num_attention_heads": 4}`, "not a multiple"},
		{`not json`, "not JSON"},
	} {
		_, err := ParseConfig("config.json", []byte(tc.config))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant ErrConfig saying %q", tc.config, err, tc.want)
		}
	}
}

// mapSource is a Source over weights held in a map: its own shapes, in
// F32 zeros.
type mapSource map[string][]int64

func (m mapSource) Weight(name string, want []int64) (Weight, error) {
	shape, ok := m[name]
	if !ok {
		return Weight{}, errors.New("no " + name)
	}
	return Weight{Shape: shape, Write: func(w io.Writer, _ bool) error {
		n := int64(4)
		for _, d := range shape {
			n *= d
		}
		_, err := w.Write(make([]byte, n))
		return err
	}}, nil
}

type unusedSource struct {
	mapSource
	left []string
}

func (u unusedSource) Unused() []string { return u.left }

// TestWeightRefusals: weights that do not fit the config are refused
// naming the tensor: one missing, one of another shape, ones the model has
// no place for.
func TestWeightRefusals(t *testing.T) {
	c, err := ParseConfig("config.json", []byte(`{"model_type": "bert", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 16}`))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := Specs(c)
	if err != nil {
		t.Fatal(err)
	}
	full := mapSource{}
	for _, s := range specs {
		full[s.Name] = s.Shape
	}
	if _, err := WriteModel(io.Discard, c, full); err != nil {
		t.Fatalf("every weight there: %v", err)
	}
	missing := mapSource{}
	for k, v := range full {
		if k != "qa_outputs.weight" {
			missing[k] = v
		}
	}
	if _, err := WriteModel(io.Discard, c, missing); err == nil || !strings.Contains(err.Error(), "qa_outputs.weight") {
		t.Errorf("missing head: %v", err)
	}
	wrong := mapSource{}
	for k, v := range full {
		wrong[k] = v
	}
	wrong["bert.encoder.layer.0.intermediate.dense.weight"] = []int64{16, 9}
	if _, err := WriteModel(io.Discard, c, wrong); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "intermediate.dense.weight has shape [16 9]") {
		t.Errorf("wrong shape: %v", err)
	}
	extra := unusedSource{full, []string{"bert.encoder.layer.1.output.dense.weight"}}
	if _, err := WriteModel(io.Discard, c, extra); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "layer.1.output.dense.weight") {
		t.Errorf("extra tensor: %v", err)
	}
}
