package testmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// bertConfig is config.json as transformers writes it for a BERT question
// answering checkpoint; keys are in sorted order like transformers' output.
type bertConfig struct {
	NameOrPath        string   `json:"_name_or_path"`
	Architectures     []string `json:"architectures"`
	AttentionDropout  float64  `json:"attention_probs_dropout_prob"`
	ClassifierDropout *float64 `json:"classifier_dropout"`
	HiddenAct         string   `json:"hidden_act"`
	HiddenDropout     float64  `json:"hidden_dropout_prob"`
	HiddenSize        int      `json:"hidden_size"`
	InitializerRange  float64  `json:"initializer_range"`
	IntermediateSize  int      `json:"intermediate_size"`
	LayerNormEps      float64  `json:"layer_norm_eps"`
	MaxPositions      int      `json:"max_position_embeddings"`
	ModelType         string   `json:"model_type"`
	NumAttentionHeads int      `json:"num_attention_heads"`
	NumHiddenLayers   int      `json:"num_hidden_layers"`
	PadTokenID        int      `json:"pad_token_id"`
	PositionEmbedding string   `json:"position_embedding_type"`
	TypeVocabSize     int      `json:"type_vocab_size"`
	UseCache          bool     `json:"use_cache"`
	VocabSize         int      `json:"vocab_size"`
}

func configJSON(p Preset) ([]byte, error) {
	return familyConfigJSON(p, "bert", "BertForQuestionAnswering")
}

// familyConfigJSON is configJSON under another model_type and
// architecture: the graph stays BERT's, which qa-shard never looks into.
func familyConfigJSON(p Preset, modelType, arch string) ([]byte, error) {
	return marshal(bertConfig{
		NameOrPath:        "qa-shard/testmodel-" + p.Name,
		Architectures:     []string{arch},
		AttentionDropout:  0.1,
		HiddenAct:         "gelu",
		HiddenDropout:     0.1,
		HiddenSize:        p.Hidden,
		InitializerRange:  initStd,
		IntermediateSize:  p.Intermediate,
		LayerNormEps:      layerNormEps,
		MaxPositions:      p.MaxPositions,
		ModelType:         modelType,
		NumAttentionHeads: p.Heads,
		NumHiddenLayers:   p.Layers,
		PositionEmbedding: "absolute",
		TypeVocabSize:     p.TypeVocab,
		UseCache:          true,
		VocabSize:         p.VocabSize,
	})
}

var specialTokens = map[string]string{
	"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]",
	"sep_token": "[SEP]", "unk_token": "[UNK]",
}

type tokenEntry struct {
	Content    string `json:"content"`
	LStrip     bool   `json:"lstrip"`
	Normalized bool   `json:"normalized"`
	RStrip     bool   `json:"rstrip"`
	SingleWord bool   `json:"single_word"`
	Special    bool   `json:"special"`
}

// tokenizerConfigJSON mirrors bert-base-uncased's tokenizer_config.json; the
// added_tokens_decoder ids come from vocab so they cannot disagree with it.
func tokenizerConfigJSON(vocab []string) ([]byte, error) {
	ids := map[string]int{}
	for i, tok := range vocab {
		if _, dup := ids[tok]; !dup {
			ids[tok] = i
		}
	}
	decoder := map[string]tokenEntry{}
	for _, tok := range specialTokens {
		id, ok := ids[tok]
		if !ok {
			return nil, fmt.Errorf("vocabulary lacks special token %s", tok)
		}
		decoder[fmt.Sprint(id)] = tokenEntry{Content: tok, Special: true}
	}
	cfg := map[string]any{
		"added_tokens_decoder":         decoder,
		"clean_up_tokenization_spaces": true,
		"do_basic_tokenize":            true,
		"do_lower_case":                true,
		"model_max_length":             512,
		"never_split":                  nil,
		"strip_accents":                nil,
		"tokenize_chinese_chars":       true,
		"tokenizer_class":              "BertTokenizer",
	}
	for k, v := range specialTokens {
		cfg[k] = v
	}
	return marshal(cfg)
}

func vocabTxt(vocab []string) ([]byte, error) {
	var b bytes.Buffer
	for i, tok := range vocab {
		// vocab.txt is line-based: a token with a line break cannot round-trip.
		if strings.ContainsAny(tok, "\r\n") {
			return nil, fmt.Errorf("vocabulary token %d %q contains a line break", i, tok)
		}
		b.WriteString(tok)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeDir renders the small files first (cheap, and a bad vocabulary fails
// before minutes of weight generation), then streams the model, and renames
// everything into place only when every file is complete.
func writeDir(dir string, p Preset, vocab []string, opts []Option) error {
	files := map[string][]byte{}
	var err error
	if files["config.json"], err = configJSON(p); err != nil {
		return fmt.Errorf("config.json: %w", err)
	}
	if files["tokenizer_config.json"], err = tokenizerConfigJSON(vocab); err != nil {
		return fmt.Errorf("tokenizer_config.json: %w", err)
	}
	if files["special_tokens_map.json"], err = marshal(specialTokens); err != nil {
		return fmt.Errorf("special_tokens_map.json: %w", err)
	}
	if files["vocab.txt"], err = vocabTxt(vocab); err != nil {
		return fmt.Errorf("vocab.txt: %w", err)
	}
	if files["tokenizer.json"], err = TokenizerJSON(vocab); err != nil {
		return fmt.Errorf("tokenizer.json: %w", err)
	}
	return writeFiles(dir, files, p, opts)
}

// writeFiles writes the small files and the model under temporary names
// and renames them into place once all of them are complete.
func writeFiles(dir string, files map[string][]byte, p Preset, opts []Option) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	temps := map[string]string{} // final name -> temporary path
	defer func() {
		for _, tmp := range temps {
			os.Remove(tmp) // no-op for the ones already renamed
		}
	}()
	for name, data := range files {
		tmp, err := writeTemp(dir, name, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
		if err != nil {
			return err
		}
		temps[name] = tmp
	}
	tmp, err := writeTemp(dir, "model.onnx", func(w io.Writer) error {
		_, err := WriteModel(w, p, opts...)
		return err
	})
	if err != nil {
		return err
	}
	temps["model.onnx"] = tmp
	for name, tmp := range temps {
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func writeTemp(dir, name string, write func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	werr := write(f)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s: %w", name, werr)
	}
	// CreateTemp makes files 0600; model directories are meant to be shared.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return f.Name(), nil
}
