// Package qamodel opens the model a run answers with: the folder's ONNX
// graph (worker.OpenModel: its inputs, outputs, positions and precision)
// and its tokenizer (tokenizer/modeldir: tokenizer.json, a conversion of
// the slow tokenizer's files, or MeCab + WordPiece), checked against each
// other before any session or document is opened. qa-shard run and
// qa-shard bench both open models through it.
package qamodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/checkpoint"
	"qa-shard/internal/cli"
	"qa-shard/internal/hub"
	"qa-shard/internal/qagraph"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// Model is a model folder, read.
type Model struct {
	Graph  *worker.Model
	Tok    *tokenizer.Tokenizer
	Origin modeldir.Origin // where the tokenizer came from
	// Built says the graph was built from the folder's checkpoint
	// (Graph.ONNXPath is then in the model cache), BuiltAs how.
	Built   bool
	BuiltAs Graph
	cleanup func()
}

// Options say how a model folder is opened.
type Options struct {
	Mecab modeldir.Options // MeCab, for a Japanese BERT
	// Cache is --model-cache: where graphs built from checkpoints are
	// kept ("": the user's cache directory; CacheOff: none).
	Cache string
	// Revision is --revision: the branch, tag or commit of a Hub model id
	// ("": main).
	Revision string
	// Graph is how a checkpoint's graph is built.
	Graph Graph
}

// Graph is how a checkpoint's graph is built: with ONNX's standard
// operators, as an optimum export is (the zero value), or with ONNX
// Runtime's fused ones (Fused: what CUDA GPUs run fastest).
type Graph struct {
	Fused bool
	// Float16: float16 weights and arithmetic (qagraph.Float16), for
	// CUDA GPUs.
	Float16 bool
}

// options are the builder's options for g.
func (g Graph) options() []qagraph.Option {
	var opts []qagraph.Option
	if g.Fused {
		opts = append(opts, qagraph.Fused())
	}
	if g.Float16 {
		opts = append(opts, qagraph.Float16())
	}
	return opts
}

// String names the graph in cache keys and messages.
func (g Graph) String() string {
	s := "standard operators"
	if g.Fused {
		s = "fused operators"
	}
	if g.Float16 {
		s += ", float16"
	}
	return s
}

// Close removes what opening left that outlives nothing (a graph built
// without a cache).
func (m *Model) Close() {
	if m != nil && m.cleanup != nil {
		m.cleanup()
		m.cleanup = nil
	}
}

// Open reads the model folder dir with MeCab options mecab (for a
// Japanese BERT), logs where its tokenizer came from (log may be nil), and
// refuses a folder whose parts do not fit together: a tokenizer larger
// than the graph's vocabulary, or maxSeqLen (0: no check) beyond the
// model's max_position_embeddings (a usage error: the flag is the
// user's to change). ONNX Runtime must be initialised
// (worker.Init) first.
func Open(dir string, o Options, maxSeqLen int, log *zap.Logger) (m *Model, err error) {
	if log == nil {
		log = zap.NewNop()
	}
	m = &Model{}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	if dir, err = resolve(dir, o.Revision, log); err != nil {
		return nil, err
	}
	onnx := filepath.Join(dir, qagraph.ModelFile)
	if _, serr := os.Stat(onnx); serr != nil && checkpoint.Has(dir) {
		// A save_pretrained folder: its graph is built from the weights.
		if onnx, m.cleanup, err = builtGraph(dir, o.Cache, o.Graph, log); err != nil {
			return nil, err
		}
		m.Built, m.BuiltAs = true, o.Graph
	}
	graph, err := worker.OpenModelAt(dir, onnx)
	if err != nil {
		return nil, err
	}
	tok, origin, err := openTokenizer(graph, o.Mecab, maxSeqLen)
	if err != nil {
		return nil, err
	}
	if origin.Converted() {
		log.Info("the model folder has no tokenizer.json: its tokenizer was "+origin.Method(),
			zap.Strings("files", origin.Files), zap.String("converter", origin.Converter), zap.String("class", origin.Class))
	} else {
		log.Info("tokenizer "+origin.Method(), zap.Strings("files", origin.Files))
	}
	m.Graph, m.Tok, m.Origin = graph, tok, origin
	return m, nil
}

// openTokenizer reads the tokenizer of graph's folder and refuses one
// that does not fit the graph: ids past its vocabulary, or windows of
// maxSeqLen (0: no check) past its positions.
func openTokenizer(graph *worker.Model, mecab modeldir.Options, maxSeqLen int) (*tokenizer.Tokenizer, modeldir.Origin, error) {
	tok, origin, err := modeldir.OpenWith(graph.Dir, mecab)
	if err != nil {
		return nil, origin, fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	graph.TokenizerPath = origin.Path()
	if err := graph.CheckVocab(tok.VocabSize()); err != nil {
		return nil, origin, err
	}
	if graph.MaxPositions > 0 && maxSeqLen > graph.MaxPositions {
		return nil, origin, fmt.Errorf("%w: --max-seq-len %d exceeds the model's %d positions (config.json max_position_embeddings)", cli.ErrUsage, maxSeqLen, graph.MaxPositions)
	}
	return tok, origin, nil
}

// resolve is the folder --model names: the folder itself, or a Hugging
// Face Hub id (org/name) found in the Hub cache or downloaded into it.
func resolve(spec, revision string, log *zap.Logger) (string, error) {
	dir, err := lookup(spec, revision)
	switch {
	case err == nil && dir != spec:
		log.Info("model from the Hugging Face cache", zap.String("model", spec), zap.String("folder", dir))
		fallthrough
	case !errors.Is(err, hub.ErrNotCached):
		return dir, err
	}
	var last time.Time
	dir, err = hub.Resolve(spec, hub.Options{Revision: revision, Progress: func(file string, done, total int64) {
		if now := time.Now(); now.Sub(last) > time.Second || done == total {
			last = now
			log.Info("downloading "+spec, zap.String("file", file), zap.Int64("bytes", done), zap.Int64("of", total))
		}
	}})
	if err != nil {
		return "", fmt.Errorf("--model %s is no folder here, and as a Hugging Face Hub id: %w", spec, err)
	}
	log.Info("model from the Hugging Face cache", zap.String("model", spec), zap.String("folder", dir))
	return dir, nil
}
