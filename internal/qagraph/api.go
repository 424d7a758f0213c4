// Package qagraph builds the ONNX graph of an extractive question-answering
// model (transformers' *ForQuestionAnswering) from its config.json and its
// weights, for every family qa-shard answers with: BERT (whole-word-masking
// SQuAD models, MiniLM, Japanese BERT), ELECTRA, DistilBERT, RoBERTa,
// XLM-R and CamemBERT, ALBERT and DeBERTa-v2/v3. The graph takes
// input_ids, attention_mask and (where the family has them)
// token_type_ids, and gives start_logits and end_logits, as an optimum
// export does; it computes what transformers' torch classes compute. The
// weights are streamed from their source into the file as it is written:
// a graph is never held in memory with its weights. Graphs whose weights
// pass protobuf's 2 GiB limit keep them in a data file beside the model.
package qagraph

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"qa-shard/internal/errkind"
)

// Sentinels, found with errors.Is; both are the user's to fix.
var (
	// ErrConfig: config.json asks for something the builder does not
	// build, or is not a question-answering model's.
	ErrConfig = errkind.NewUser("the model's config cannot be built")
	// ErrWeights: the weights do not fit the config (a tensor missing,
	// extra, or of another shape or type).
	ErrWeights = errkind.NewUser("the weights do not fit the model")
)

// Weight is one tensor a Source gives: its shape, and a function that
// streams its elements as little-endian float32, transposed when asked
// (a [rows, cols] matrix as [cols, rows]).
type Weight struct {
	Shape []int64
	Write func(w io.Writer, transpose bool) error
}

// Source gives the builder its weights by transformers' names. want is
// the shape the config implies; a source with a tensor of another shape
// refuses it (ErrWeights, naming both).
type Source interface {
	Weight(name string, want []int64) (Weight, error)
}

// Unused is what a Source may add: the tensors the build did not take,
// which Build refuses unless a model loaded by transformers would ignore
// them too (buffers such as position_ids, a pooler, pre-training heads).
type Unused interface {
	Unused() []string
}

// Option changes the graph's signature from what the family's export
// has: the test models of package testmodel use them.
type Option func(*options)

type options struct {
	tokenTypes *bool // the token_type_ids input; nil: the family's default
	fp16Logits bool
	fused      bool
	half       bool
}

// WithoutTokenTypeIDs drops the token_type_ids input, as DistilBERT-like
// exports do: the token type table's row 0 is added to every position.
func WithoutTokenTypeIDs() Option { return func(o *options) { no := false; o.tokenTypes = &no } }

// Float16Logits makes start_logits and end_logits float16, as in exports
// optimized for GPUs; the weights and arithmetic stay float32.
func Float16Logits() Option { return func(o *options) { o.fp16Logits = true } }

// Fused writes the graph with ONNX Runtime's fused transformer operators
// (com.microsoft): Attention over packed query, key and value weights with
// the padding mask, SkipLayerNormalization with the output projection's
// bias folded in, BiasGelu for exact GELU (FastGelu only for the tanh
// approximation hidden_act names), EmbedLayerNormalization for the
// embeddings of BERT-like families, LayerNormalization elsewhere.
// DeBERTa's disentangled attention stays unfused (docs/models.md says why);
// its layers' other parts are fused. The graph computes what the unfused
// one does, up to the order of float32 sums.
func Fused() Option { return func(o *options) { o.fused = true } }

// Float16 stores the weights as float16 and computes in float16, for
// GPUs: inputs stay int64 and the logits float32 at the graph's boundary;
// the embeddings are summed and normalised in float32 (their tables stay
// float32) and cast. With Fused, LayerNorm and Softmax accumulate as ONNX
// Runtime's float16 kernels do; without it, as the exported operators do
// in float16. Answers then differ from float32's in their last digits and,
// rarely, in which span wins: qa-shard measures how often (--precision).
func Float16() Option { return func(o *options) { o.half = true } }

// Model files, as an optimum export names them.
const (
	ModelFile = "model.onnx"
	DataFile  = "model.onnx.data" // external data, for graphs past 2 GiB
)

// Producer names the builder in the files it writes; Version changes
// whenever a graph it writes changes, so caches of built graphs key on it.
const (
	Producer = "qa-shard qagraph"
	Version  = "2"
)

// Result says what was written.
type Result struct {
	Inputs   []string // the graph's inputs, in order
	External bool     // the weights are in DataFile
	Bytes    int64    // of model.onnx and its data
}

// Build writes the model of config c with the weights of src into the
// folder dir (which must exist): model.onnx, and model.onnx.data when the
// weights pass 2 GiB.
func Build(dir string, c Config, src Source, opts ...Option) (Result, error) {
	g, err := build(c, src, opts...)
	if err != nil {
		return Result{}, err
	}
	res := Result{External: needsExternal(g)}
	for _, in := range g.inputs {
		res.Inputs = append(res.Inputs, in.name)
	}
	f, err := os.Create(filepath.Join(dir, ModelFile))
	if err != nil {
		return res, err
	}
	defer f.Close()
	var data *os.File
	if res.External {
		if data, err = os.Create(filepath.Join(dir, DataFile)); err != nil {
			return res, err
		}
		defer data.Close()
	}
	var dw io.Writer
	if data != nil {
		dw = data
	}
	n, err := writeModel(f, dw, DataFile, g, opsets(g), Producer, Version)
	if err != nil {
		return res, err
	}
	res.Bytes = n
	for _, file := range []*os.File{f, data} {
		if file == nil {
			continue
		}
		if err := file.Sync(); err != nil {
			return res, err
		}
		if st, err := file.Stat(); err == nil && file == data {
			res.Bytes += st.Size()
		}
	}
	return res, nil
}

// Check is Build without writing: src gives every weight config c
// implies, in its shape, and nothing the model has no place for. No
// weight is read (a checkpoint's tensors are read when written).
func Check(c Config, src Source, opts ...Option) error {
	_, err := build(c, src, opts...)
	return err
}

// WriteModel streams the model of config c with the weights of src to w,
// all in one file: for graphs under 2 GiB (tests, small models).
func WriteModel(w io.Writer, c Config, src Source, opts ...Option) (int64, error) {
	g, err := build(c, src, opts...)
	if err != nil {
		return 0, err
	}
	if needsExternal(g) {
		return 0, fmt.Errorf("%w: the weights pass 2 GiB: write the model into a folder (Build), with its weights beside it", ErrWeights)
	}
	return writeModel(w, nil, "", g, opsets(g), Producer, Version)
}

// Spec is one weight the config implies: what a Source must give.
type Spec struct {
	Name  string
	Shape []int64
}

// Specs lists the weights the model of config c takes, in the order the
// builder takes them: what a generated checkpoint holds.
func Specs(c Config) ([]Spec, error) {
	var r recorder
	if _, err := build(c, &r); err != nil {
		return nil, err
	}
	return r.specs, nil
}

// recorder is a Source that gives every weight as asked, zeros, and
// remembers what was asked.
type recorder struct{ specs []Spec }

func (r *recorder) Weight(name string, want []int64) (Weight, error) {
	r.specs = append(r.specs, Spec{Name: name, Shape: slices.Clone(want)})
	return Weight{Shape: want, Write: func(w io.Writer, _ bool) error {
		n := int64(4)
		for _, d := range want {
			n *= d
		}
		_, err := w.Write(make([]byte, n))
		return err
	}}, nil
}

// opsets are the operator sets g imports: ONNX's, and ONNX Runtime's
// when a node uses it (the fused graph).
func opsets(g *graph) []opset {
	sets := []opset{{domain: "", version: defaultOpset}}
	for _, n := range g.nodes {
		if n.domain == msDomain {
			return append(sets, opset{domain: msDomain, version: 1})
		}
	}
	return sets
}
