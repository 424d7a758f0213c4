package qagraph

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Config is what the builder reads of a model's config.json, with the
// defaults of the family's transformers configuration class where the
// file leaves a field out (transformers 4.57).
type Config struct {
	ModelType     string
	Architectures []string
	VocabSize     int
	Hidden        int
	Layers        int
	Heads         int
	HeadSize      int // DeBERTa's attention_head_size; else Hidden/Heads
	Intermediate  int
	HiddenAct     string
	LayerNormEps  float64
	MaxPositions  int
	TypeVocab     int
	PadTokenID    int
	// EmbeddingSize is the width of the embeddings when it differs from
	// Hidden (ALBERT, ELECTRA, DeBERTa's embed_proj); 0: Hidden.
	EmbeddingSize int
	// ALBERT's sharing of layers.
	HiddenGroups, InnerGroups int
	// DeBERTa-v2/v3.
	RelativeAttention    bool
	MaxRelativePositions int
	PositionBuckets      int
	PosAttType           []string
	ShareAttKey          bool
	NormRelEbd           []string
	PositionBiasedInput  bool

	tokenTypes *bool // Option WithoutTokenTypeIDs
}

// Families are the model types the builder builds, and the architecture
// each must name (the question-answering head).
var Families = map[string]string{
	"bert":        "BertForQuestionAnswering",
	"electra":     "ElectraForQuestionAnswering",
	"distilbert":  "DistilBertForQuestionAnswering",
	"roberta":     "RobertaForQuestionAnswering",
	"xlm-roberta": "XLMRobertaForQuestionAnswering",
	"camembert":   "CamembertForQuestionAnswering",
	"albert":      "AlbertForQuestionAnswering",
	"deberta-v2":  "DebertaV2ForQuestionAnswering",
}

// FamilyNames lists the model types built, sorted: for messages.
func FamilyNames() []string {
	var names []string
	for k := range Families {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// activations are the hidden_act values built (transformers' ACT2FN
// names): the exact GELU, its tanh approximations, ReLU and SiLU.
var activations = []string{"gelu", "gelu_python", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "silu", "swish"}

// ParseConfig reads config.json's bytes (file names it in messages).
// Anything the builder does not build is refused here, naming the field:
// an unknown model_type (with the list of those built), a
// position_embedding_type other than absolute, an unknown hidden_act,
// DeBERTa's convolution layer.
func ParseConfig(file string, b []byte) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Config{}, fmt.Errorf("%w: %s is not JSON: %w", ErrConfig, file, err)
	}
	var c Config
	get := func(key string, into any) error {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, into); err != nil {
			return fmt.Errorf("%w: %s: %s is %s: %w", ErrConfig, file, key, v, err)
		}
		return nil
	}
	if err := get("model_type", &c.ModelType); err != nil {
		return c, err
	}
	if _, ok := Families[c.ModelType]; !ok {
		return c, fmt.Errorf("%w: %s: model_type %q is not one qa-shard builds from weights (it builds %s); export the model to ONNX with optimum and pass that folder instead",
			ErrConfig, file, c.ModelType, strings.Join(FamilyNames(), ", "))
	}
	if err := get("architectures", &c.Architectures); err != nil {
		return c, err
	}
	want := Families[c.ModelType]
	if len(c.Architectures) > 0 && !slices.Contains(c.Architectures, want) {
		return c, fmt.Errorf("%w: %s: architectures %v: qa-shard answers with a question-answering head, %s (a checkpoint fine-tuned for extractive QA, as AutoModelForQuestionAnswering loads)",
			ErrConfig, file, c.Architectures, want)
	}
	c.defaults()
	fields := []struct {
		key  string
		into any
	}{
		{"vocab_size", &c.VocabSize}, {"hidden_size", &c.Hidden}, {"num_hidden_layers", &c.Layers},
		{"num_attention_heads", &c.Heads}, {"intermediate_size", &c.Intermediate}, {"hidden_act", &c.HiddenAct},
		{"layer_norm_eps", &c.LayerNormEps}, {"max_position_embeddings", &c.MaxPositions},
		{"type_vocab_size", &c.TypeVocab}, {"pad_token_id", &c.PadTokenID}, {"embedding_size", &c.EmbeddingSize},
		{"num_hidden_groups", &c.HiddenGroups}, {"inner_group_num", &c.InnerGroups},
		{"relative_attention", &c.RelativeAttention}, {"max_relative_positions", &c.MaxRelativePositions},
		{"position_buckets", &c.PositionBuckets}, {"share_att_key", &c.ShareAttKey},
		{"position_biased_input", &c.PositionBiasedInput}, {"attention_head_size", &c.HeadSize},
	}
	if c.ModelType == "distilbert" {
		fields = append(fields, []struct {
			key  string
			into any
		}{{"dim", &c.Hidden}, {"n_layers", &c.Layers}, {"n_heads", &c.Heads}, {"hidden_dim", &c.Intermediate}, {"activation", &c.HiddenAct}}...)
	}
	for _, f := range fields {
		if err := get(f.key, f.into); err != nil {
			return c, err
		}
	}
	if err := c.readDeberta(file, raw); err != nil {
		return c, err
	}
	err := c.check(file, raw)
	return c, err
}

// defaults are the family's configuration class defaults.
func (c *Config) defaults() {
	*c = Config{ModelType: c.ModelType, Architectures: c.Architectures, VocabSize: 30522, Hidden: 768, Layers: 12, Heads: 12,
		Intermediate: 3072, HiddenAct: "gelu", LayerNormEps: 1e-12, MaxPositions: 512, TypeVocab: 2,
		HiddenGroups: 1, InnerGroups: 1, MaxRelativePositions: -1, PositionBuckets: -1, PositionBiasedInput: true}
	switch c.ModelType {
	case "roberta", "xlm-roberta", "camembert":
		c.PadTokenID = 1
	case "electra":
		c.EmbeddingSize, c.Hidden, c.Heads, c.Intermediate = 128, 256, 4, 1024
	case "albert":
		c.VocabSize, c.EmbeddingSize, c.Hidden, c.Heads, c.Intermediate, c.HiddenAct = 30000, 128, 4096, 64, 16384, "gelu_new"
	case "distilbert":
		c.Layers = 6
	case "deberta-v2":
		c.VocabSize, c.Hidden, c.Layers, c.Heads, c.Intermediate, c.TypeVocab, c.LayerNormEps = 128100, 1536, 24, 24, 6144, 0, 1e-7
	}
}

// readDeberta reads DeBERTa's pos_att_type (a list, or "p2c|c2p" in older
// files) and norm_rel_ebd ("layer_norm", "none").
func (c *Config) readDeberta(file string, raw map[string]json.RawMessage) error {
	if c.ModelType != "deberta-v2" {
		return nil
	}
	if v, ok := raw["pos_att_type"]; ok && string(v) != "null" {
		var list []string
		var one string
		switch {
		case json.Unmarshal(v, &list) == nil:
		case json.Unmarshal(v, &one) == nil:
			list = strings.Split(strings.ToLower(one), "|")
		default:
			return fmt.Errorf("%w: %s: pos_att_type is %s, not a list of c2p and p2c", ErrConfig, file, v)
		}
		for _, p := range list {
			if p = strings.TrimSpace(p); p != "" {
				c.PosAttType = append(c.PosAttType, p)
			}
		}
	}
	c.NormRelEbd = []string{"none"}
	if v, ok := raw["norm_rel_ebd"]; ok && string(v) != "null" {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("%w: %s: norm_rel_ebd is %s", ErrConfig, file, v)
		}
		c.NormRelEbd = nil
		for _, p := range strings.Split(strings.ToLower(s), "|") {
			c.NormRelEbd = append(c.NormRelEbd, strings.TrimSpace(p))
		}
	}
	return nil
}

// check refuses what the builder does not build, naming the field.
func (c *Config) check(file string, raw map[string]json.RawMessage) error {
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, file, fmt.Sprintf(format, a...))
	}
	var pet string
	if v, ok := raw["position_embedding_type"]; ok {
		_ = json.Unmarshal(v, &pet)
	}
	if pet != "" && pet != "absolute" {
		return refuse("position_embedding_type %q is not built (only absolute position embeddings are)", pet)
	}
	if !slices.Contains(activations, c.HiddenAct) {
		return refuse("hidden_act %q is not built (%s are)", c.HiddenAct, strings.Join(activations, ", "))
	}
	if c.ModelType == "deberta-v2" {
		var conv int
		if v, ok := raw["conv_kernel_size"]; ok {
			_ = json.Unmarshal(v, &conv)
		}
		if conv > 0 {
			return refuse("conv_kernel_size %d: DeBERTa's convolution layer (deberta-v2-xlarge and -xxlarge) is not built", conv)
		}
		for _, p := range c.PosAttType {
			if p != "c2p" && p != "p2c" {
				return refuse("pos_att_type %q is not built (c2p and p2c are)", p)
			}
		}
		for _, n := range c.NormRelEbd {
			if n != "none" && n != "layer_norm" {
				return refuse("norm_rel_ebd %q is not built (layer_norm and none are)", n)
			}
		}
	}
	if c.ModelType == "albert" && (c.HiddenGroups < 1 || c.InnerGroups < 1 || c.Layers%c.HiddenGroups != 0) {
		return refuse("num_hidden_groups %d and inner_group_num %d do not divide num_hidden_layers %d", c.HiddenGroups, c.InnerGroups, c.Layers)
	}
	switch {
	case c.Hidden <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.Intermediate <= 0 || c.VocabSize <= 0 || c.MaxPositions <= 0:
		return refuse("hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size and max_position_embeddings must be positive")
	case c.HeadSize == 0 && c.Hidden%c.Heads != 0:
		return refuse("hidden_size %d is not a multiple of num_attention_heads %d", c.Hidden, c.Heads)
	}
	if c.HeadSize == 0 {
		c.HeadSize = c.Hidden / c.Heads
	}
	if c.EmbeddingSize == 0 {
		c.EmbeddingSize = c.Hidden
	}
	return nil
}

// TokenTypes says whether the graph takes token_type_ids: the families
// whose tokenizers give the context its own type (BERT, ELECTRA, ALBERT,
// DeBERTa with type_vocab_size > 0); RoBERTa's exports have none.
func (c Config) TokenTypes() bool {
	if c.tokenTypes != nil {
		return *c.tokenTypes
	}
	switch c.ModelType {
	case "bert", "electra", "albert":
		return true
	case "deberta-v2":
		return c.TypeVocab > 0
	}
	return false
}
