// Package qamodel opens the model a run answers with: the folder's ONNX
// graph (worker.OpenModel: its inputs, outputs, positions and precision)
// and its tokenizer (tokenizer/modeldir: tokenizer.json, a conversion of
// the slow tokenizer's files, or MeCab + WordPiece), checked against each
// other before any session or document is opened. qa-shard run and
// qa-shard bench both open models through it.
package qamodel

import (
	"fmt"

	"go.uber.org/zap"

	"qa-shard/internal/cli"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// Model is a model folder, read.
type Model struct {
	Graph  *worker.Model
	Tok    *tokenizer.Tokenizer
	Origin modeldir.Origin // where the tokenizer came from
}

// Open reads the model folder dir with MeCab options mecab (for a
// Japanese BERT), logs where its tokenizer came from (log may be nil), and
// refuses a folder whose parts do not fit together: a tokenizer larger
// than the graph's vocabulary, or maxSeqLen (0: no check) beyond the
// model's max_position_embeddings (a usage error: the flag is the
// user's to change). ONNX Runtime must be initialised
// (worker.Init) first.
func Open(dir string, mecab modeldir.Options, maxSeqLen int, log *zap.Logger) (*Model, error) {
	if log == nil {
		log = zap.NewNop()
	}
	graph, err := worker.OpenModel(dir)
	if err != nil {
		return nil, err
	}
	tok, origin, err := modeldir.OpenWith(graph.Dir, mecab)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	graph.TokenizerPath = origin.Path()
	if origin.Converted() {
		log.Info("the model folder has no tokenizer.json: its tokenizer was "+origin.String(),
			zap.Strings("files", origin.Files), zap.String("converter", origin.Converter), zap.String("class", origin.Class))
	} else {
		log.Info("tokenizer: "+origin.String(), zap.Strings("files", origin.Files))
	}
	if err := graph.CheckVocab(tok.VocabSize()); err != nil {
		return nil, err
	}
	if graph.MaxPositions > 0 && maxSeqLen > graph.MaxPositions {
		return nil, fmt.Errorf("%w: --max-seq-len %d exceeds the model's %d positions (config.json max_position_embeddings)", cli.ErrUsage, maxSeqLen, graph.MaxPositions)
	}
	return &Model{Graph: graph, Tok: tok, Origin: origin}, nil
}
