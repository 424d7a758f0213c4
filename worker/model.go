package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/isa"
)

// Model describes a model directory as Hugging Face optimum exports it for
// question answering: model.onnx, tokenizer.json (or the slow tokenizer's
// files) and config.json. Names and element types are read from the graph
// itself, never assumed. TokenizerPath is the file the tokenizer's ids come
// from (tokenizer.json, or the vocabulary a conversion read).
type Model struct {
	Dir           string
	ONNXPath      string
	TokenizerPath string

	InputIDs      string // input names as found in the graph
	AttentionMask string
	TokenTypeIDs  string // "" when the model has none (DistilBERT, RoBERTa)
	inputTypes    map[string]ort.TensorElementDataType

	StartLogits, EndLogits string
	LogitsType             ort.TensorElementDataType // float32 or float16

	// MaxPositions is config.json's max_position_embeddings, else the
	// rows of the graph's position table (0 if neither tells): windows
	// longer than this would index past the position table. A config
	// that gives more positions than the table has is refused.
	MaxPositions int
	ModelType    string
	// VocabSize is config.json's vocab_size (0 if absent) and
	// EmbeddingRows the rows of the graph's word embedding table (0 if not
	// found): every token id must be below both.
	VocabSize     int
	EmbeddingRows int

	// QuantizedActivations is true when the graph quantizes activations at
	// run time with one scale per tensor (dynamic int8): a window's logits
	// then depend on its batch neighbours and padding, so it must run as a
	// batch of one unpadded window for answers to be reproducible.
	QuantizedActivations bool
	// FullRangeS8 names an int8 weight of the model that a CPU without
	// VNNI or AMX would multiply with 16-bit saturation (the s8 scheme of
	// `qa-shard quantize`, most other quantizers' default); "" if none.
	// On such a CPU replicas turn on ONNX Runtime's exact u8 x u8 path
	// (PreciseInt8).
	FullRangeS8 string

	modelOnce // fingerprint and placement, shared by the model's replicas
}

// OpenModel checks a model directory and reads the graph's signature. Init
// must have succeeded first (ONNX Runtime parses the graph).
func OpenModel(dir string) (*Model, error) {
	return OpenModelAt(dir, filepath.Join(dir, "model.onnx"))
}

// OpenModelAt is OpenModel of a folder whose graph is onnx, elsewhere (a
// graph qa-shard built from the folder's checkpoint).
func OpenModelAt(dir, onnx string) (*Model, error) {
	m, err := ReadFolder(dir, onnx)
	if err != nil {
		return nil, err
	}
	ins, outs, err := signature(m.ONNXPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a model ONNX Runtime can load: %w", ErrConfig, m.ONNXPath, err)
	}
	if err := m.bindInputs(ins); err != nil {
		return nil, err
	}
	if err := m.bindOutputs(outs); err != nil {
		return nil, err
	}
	gf, err := readGraphFacts(m.ONNXPath, m.InputIDs)
	if err != nil {
		return nil, err
	}
	m.QuantizedActivations, m.EmbeddingRows, m.FullRangeS8 = gf.quantized, int(gf.embeddingRows), gf.fullRangeS8
	switch rows := int(gf.positionRows); {
	case rows > 0 && m.MaxPositions > rows:
		return nil, fmt.Errorf("%w: %s gives max_position_embeddings %d, but the position table of %s has %d rows: windows longer than %d tokens would fail inside the model; the config does not belong to this graph (export both from the same checkpoint, or correct max_position_embeddings to %d)",
			ErrConfig, filepath.Join(dir, "config.json"), m.MaxPositions, m.ONNXPath, rows, rows, rows)
	case rows > 0 && m.MaxPositions == 0:
		m.MaxPositions = rows // no config.json says it: the graph does
	}
	return m, nil
}

// ReadFolder is the part of OpenModelAt that needs no ONNX Runtime: the
// folder exists, holds its graph onnx ("": none yet, a checkpoint's graph
// is built later), and its config.json, when there is one, is read.
func ReadFolder(dir, onnx string) (*Model, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: model folder %q not found: --model takes a folder save_pretrained wrote (config.json, model.safetensors or pytorch_model.bin, tokenizer files), a Hugging Face Hub id (org/name), or an ONNX export (model.onnx)", ErrConfig, dir)
	}
	// The tokenizer's files are the tokenizer's to find (tokenizer/modeldir:
	// tokenizer.json, or the slow tokenizer's files converted).
	m := &Model{Dir: dir, ONNXPath: onnx, TokenizerPath: filepath.Join(dir, "tokenizer.json")}
	if onnx != "" {
		if _, err := os.Stat(m.ONNXPath); err != nil {
			return nil, fmt.Errorf("%w: %s holds neither model.onnx nor weights (model.safetensors, its index, or pytorch_model.bin): --model takes a folder save_pretrained wrote, a Hub id, or an ONNX export", ErrConfig, dir)
		}
	}
	if err := m.readConfig(); err != nil {
		return nil, err
	}
	return m, nil
}

// PreciseInt8 says whether the model's CPU sessions on a CPU of set s
// need ONNX Runtime's session.x64quantprecision: it rewrites s8 weights to
// u8 at load and multiplies u8 x u8 without saturation, slower than the
// u8 x s8 kernels but exact. Only where those kernels would saturate on
// the model's weights: everywhere else it would cost speed for nothing
// (on AVX-512 VNNI it too turns s8 weights into u8: 17.5 against 12.4 ms a
// window on the 4-layer model, measured).
func (m *Model) PreciseInt8(s isa.Set) bool {
	return m.FullRangeS8 != "" && s.SaturatesU8S8()
}

// signature reads the graph's inputs and outputs through a throwaway CPU
// session with graph optimizations off: the replicas load the model again,
// so optimizing it here would only slow the start of a run.
func signature(path string) ([]ort.InputOutputInfo, []ort.InputOutputInfo, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, err
	}
	defer so.Destroy()
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, err
	}
	return ort.GetInputOutputInfoWithOptions(path, so)
}

func (m *Model) readConfig() error {
	b, err := os.ReadFile(filepath.Join(m.Dir, "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil // optional: only used to check window lengths early
	}
	if err != nil {
		return fmt.Errorf("%w: %s/config.json cannot be read: %w", ErrConfig, m.Dir, err)
	}
	var c struct {
		MaxPositions int    `json:"max_position_embeddings"`
		ModelType    string `json:"model_type"`
		VocabSize    int    `json:"vocab_size"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("%w: %s/config.json is not valid JSON: %w", ErrConfig, m.Dir, err)
	}
	m.MaxPositions, m.ModelType, m.VocabSize = c.MaxPositions, c.ModelType, c.VocabSize
	return nil
}

// CheckVocab refuses a tokenizer whose ids reach past the model's
// embedding table (tokens is one more than its largest id): such ids would
// fail inside the model, or worse, in the middle of a run.
func (m *Model) CheckVocab(tokens int) error {
	if m.VocabSize > 0 && tokens > m.VocabSize {
		return fmt.Errorf("%w: %s has token ids up to %d but %s gives vocab_size %d: the tokenizer does not belong to this model (export both from the same checkpoint)",
			ErrConfig, m.TokenizerPath, tokens-1, filepath.Join(m.Dir, "config.json"), m.VocabSize)
	}
	if m.EmbeddingRows > 0 && tokens > m.EmbeddingRows {
		return fmt.Errorf("%w: %s has token ids up to %d but the word embedding table of %s has %d rows: the tokenizer does not belong to this model (export both from the same checkpoint)",
			ErrConfig, m.TokenizerPath, tokens-1, m.ONNXPath, m.EmbeddingRows)
	}
	return nil
}

func (m *Model) bindInputs(ins []ort.InputOutputInfo) error {
	m.inputTypes = map[string]ort.TensorElementDataType{}
	var found []string
	for _, in := range ins {
		found = append(found, describe(in))
		switch in.Name {
		case "input_ids":
			m.InputIDs = in.Name
		case "attention_mask":
			m.AttentionMask = in.Name
		case "token_type_ids":
			m.TokenTypeIDs = in.Name
		default:
			return fmt.Errorf("%w: model.onnx has an input %q this program cannot feed: expected input_ids, attention_mask and optionally token_type_ids (int64), found %s", ErrConfig, in.Name, strings.Join(found, ", "))
		}
		if in.DataType != ort.TensorElementDataTypeInt64 && in.DataType != ort.TensorElementDataTypeInt32 {
			return fmt.Errorf("%w: model.onnx input %q has element type %s: expected int64 or int32", ErrConfig, in.Name, in.DataType)
		}
		m.inputTypes[in.Name] = in.DataType
	}
	if m.InputIDs == "" || m.AttentionMask == "" {
		return fmt.Errorf("%w: model.onnx must take input_ids and attention_mask (an extractive question-answering export); found %s", ErrConfig, strings.Join(found, ", "))
	}
	return nil
}

func (m *Model) bindOutputs(outs []ort.InputOutputInfo) error {
	var found []string
	for _, o := range outs {
		found = append(found, describe(o))
		if o.Name != "start_logits" && o.Name != "end_logits" {
			continue
		}
		if o.DataType != ort.TensorElementDataTypeFloat && o.DataType != ort.TensorElementDataTypeFloat16 {
			return fmt.Errorf("%w: model.onnx output %q has element type %s: expected float32 or float16", ErrConfig, o.Name, o.DataType)
		}
		if len(o.Dimensions) != 2 {
			return fmt.Errorf("%w: model.onnx output %q has shape %s: expected [batch, sequence]", ErrConfig, o.Name, o.Dimensions)
		}
		if o.Name == "start_logits" {
			m.StartLogits = o.Name
		} else {
			m.EndLogits = o.Name
		}
		if m.LogitsType != 0 && m.LogitsType != o.DataType {
			return fmt.Errorf("%w: model.onnx start and end logits differ in element type", ErrConfig)
		}
		m.LogitsType = o.DataType
	}
	if m.StartLogits == "" || m.EndLogits == "" {
		return fmt.Errorf("%w: model.onnx is not an extractive question-answering model: expected outputs start_logits and end_logits, found %s (export with --task question-answering)", ErrConfig, strings.Join(found, ", "))
	}
	return nil
}

// LogitsTypeName is the logits element type as a user would write it.
func (m *Model) LogitsTypeName() string {
	if m.LogitsType == ort.TensorElementDataTypeFloat16 {
		return "float16"
	}
	return "float32"
}

func describe(io ort.InputOutputInfo) string {
	return fmt.Sprintf("%s %s%v", io.Name, io.DataType, []int64(io.Dimensions))
}

func (m *Model) inputNames() []string {
	names := []string{m.InputIDs, m.AttentionMask}
	if m.TokenTypeIDs != "" {
		names = append(names, m.TokenTypeIDs)
	}
	return names
}

func (m *Model) outputNames() []string { return []string{m.StartLogits, m.EndLogits} }
