package testmodel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/internal/checkpoint"
	"qa-shard/internal/qagraph"
)

// Checkpoint is a tiny save_pretrained folder of one family for the tests
// of building graphs from weights: config.json with the family's fields,
// model.safetensors with seeded weights under transformers' names (those
// qagraph.Specs lists, which tools/reference loads into transformers'
// own classes, refusing a name or shape they do not have), and the
// family's tokenizer files.
type Checkpoint struct {
	Name      string
	Tokenizer string         // the folder of testenv.TokenizersDir holding its tokenizer, or "bert"
	Config    map[string]any // config.json but vocab_size, which the tokenizer gives
	// TokenizerClass, when set, replaces tokenizer_config.json's
	// tokenizer_class (DistilBERT's takes no token_type_ids).
	TokenizerClass string
}

// Checkpoints are every family qagraph builds, DeBERTa in the
// configurations its released QA checkpoints use.
var Checkpoints = []Checkpoint{
	{"ck-bert", "bert", map[string]any{"model_type": "bert", "architectures": []string{"BertForQuestionAnswering"}}, ""},
	{"ck-electra", "bert", map[string]any{"model_type": "electra", "architectures": []string{"ElectraForQuestionAnswering"}, "embedding_size": 16}, "ElectraTokenizer"},
	{"ck-distilbert", "bert", map[string]any{"model_type": "distilbert", "architectures": []string{"DistilBertForQuestionAnswering"},
		"dim": 32, "n_layers": 2, "n_heads": 4, "hidden_dim": 48}, "DistilBertTokenizer"},
	{"ck-roberta", "roberta", map[string]any{"model_type": "roberta", "architectures": []string{"RobertaForQuestionAnswering"},
		"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "type_vocab_size": 1, "max_position_embeddings": 514, "layer_norm_eps": 1e-5}, ""},
	{"ck-xlm-roberta", "xlmr", map[string]any{"model_type": "xlm-roberta", "architectures": []string{"XLMRobertaForQuestionAnswering"},
		"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "type_vocab_size": 1, "max_position_embeddings": 514, "layer_norm_eps": 1e-5}, ""},
	{"ck-albert", "albert", map[string]any{"model_type": "albert", "architectures": []string{"AlbertForQuestionAnswering"},
		"embedding_size": 16, "hidden_act": "gelu_new", "num_hidden_groups": 1, "inner_group_num": 1}, ""},
	{"ck-deberta-v3", "deberta", map[string]any{"model_type": "deberta-v2", "architectures": []string{"DebertaV2ForQuestionAnswering"},
		"relative_attention": true, "position_buckets": 256, "max_relative_positions": -1, "pos_att_type": []string{"p2c", "c2p"},
		"share_att_key": true, "norm_rel_ebd": "layer_norm", "position_biased_input": false, "type_vocab_size": 0, "layer_norm_eps": 1e-7}, ""},
}

// checkpointBase are the tiny dimensions every family shares.
var checkpointBase = map[string]any{"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
	"intermediate_size": 48, "max_position_embeddings": 512, "hidden_act": "gelu", "initializer_range": 0.02}

// checkpointStd is the spread of the seeded weights: wide enough that the
// untrained models' answers are not near-ties.
const checkpointStd = 0.4

// WriteCheckpoint writes c into dir (created): config.json, the seeded
// weights as model.safetensors, and the tokenizer files of tokDir, whose
// vocabulary size sets vocab_size.
func WriteCheckpoint(dir string, c Checkpoint, tokDir string, seed uint64) error {
	return writeCheckpoint(dir, c, tokDir, seed, checkpointStd)
}

func writeCheckpoint(dir string, c Checkpoint, tokDir string, seed uint64, std float32) error {
	files, vocab, err := readTokenizerFiles(tokDir)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.Name, err)
	}
	cfg := maps.Clone(checkpointBase)
	maps.Copy(cfg, c.Config)
	cfg["vocab_size"] = vocab
	cfgBytes, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	parsed, err := qagraph.ParseConfig("config.json", cfgBytes)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.Name, err)
	}
	specs, err := qagraph.Specs(parsed)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tensors := make([]checkpoint.NewTensor, len(specs))
	for i, s := range specs {
		tensors[i] = checkpoint.NewTensor{Name: s.Name, Shape: s.Shape, Fill: seededFill(seed, s, std)}
	}
	f, err := os.Create(filepath.Join(dir, checkpoint.SafetensorsFile))
	if err != nil {
		return err
	}
	if err := checkpoint.WriteSafetensors(f, tensors); err != nil {
		f.Close()
		return fmt.Errorf("checkpoint %s: %w", c.Name, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	files["config.json"] = cfgBytes
	if c.TokenizerClass != "" {
		var tc map[string]any
		if err := json.Unmarshal(files["tokenizer_config.json"], &tc); err != nil {
			return fmt.Errorf("checkpoint %s: tokenizer_config.json: %w", c.Name, err)
		}
		tc["tokenizer_class"] = c.TokenizerClass
		if files["tokenizer_config.json"], err = json.MarshalIndent(tc, "", "  "); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// seededFill gives a weight its seeded values: LayerNorm scales 1 +-
// lnSpread, biases and the rest spread by std.
func seededFill(seed uint64, s qagraph.Spec, std float32) func(w io.Writer) error {
	n := 1
	for _, d := range s.Shape {
		n *= int(d)
	}
	if !strings.HasSuffix(s.Name, "LayerNorm.weight") && !strings.HasSuffix(s.Name, "layer_norm.weight") {
		return fillNormal(seedFor(seed, s.Name), n, std, 0)
	}
	normal := fillNormal(seedFor(seed, s.Name), n, lnSpread, 0)
	return func(w io.Writer) error { return normal(&plusOne{w: w}) }
}

// lnSpread is the spread of the seeded LayerNorm scales around 1.
const lnSpread = 0.16

// plusOne adds 1 to every float32 written through it.
type plusOne struct{ w io.Writer }

func (s *plusOne) Write(p []byte) (int, error) {
	out := make([]byte, len(p))
	for i := 0; i+4 <= len(p); i += 4 {
		copy(out[i:], float32Bytes(float32FromBytes(p[i:])+1))
	}
	return s.w.Write(out)
}

func float32FromBytes(b []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// WritePresetCheckpoint writes p's BERT as a save_pretrained folder into
// dir: config.json, seeded model.safetensors (BERT's initializer spread,
// 0.02) and the bert-base-uncased tokenizer files of tokDir. The
// benchmarks time building graphs from it (bert-base, bert-large).
func WritePresetCheckpoint(dir string, p Preset, tokDir string) error {
	c := Checkpoint{Name: "bert-" + p.Name, Tokenizer: "bert", Config: map[string]any{"model_type": "bert",
		"architectures": []string{"BertForQuestionAnswering"}, "hidden_size": p.Hidden, "num_hidden_layers": p.Layers,
		"num_attention_heads": p.Heads, "intermediate_size": p.Intermediate, "max_position_embeddings": p.MaxPositions,
		"type_vocab_size": p.TypeVocab}}
	return writeCheckpoint(dir, c, tokDir, p.Seed, initStd)
}

// GenerateCheckpoints writes every Checkpoints folder under dir (named by
// its Name) around the family tokenizers in toks (make
// tokenizer-fixtures' folders) and, for BERT's families, the
// bert-base-uncased tokenizer of the tiny model over vocab.
func GenerateCheckpoints(dir, toks string, vocab []string) error {
	bert := filepath.Join(dir, ".bert-tokenizer")
	if err := Generate(bert, Tiny, vocab); err != nil {
		return err
	}
	for i, c := range Checkpoints {
		tok := filepath.Join(toks, c.Tokenizer)
		if c.Tokenizer == "bert" {
			tok = bert
		}
		if err := WriteCheckpoint(filepath.Join(dir, c.Name), c, tok, 0x7e57_c000+uint64(i)); err != nil {
			return err
		}
	}
	return nil
}
