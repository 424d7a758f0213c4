package qamodel

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"qa-shard/internal/checkpoint"
	"qa-shard/internal/errkind"
	"qa-shard/internal/qagraph"
	"qa-shard/tokenizer/modeldir"
)

// ErrExport marks an export that cannot be written where asked.
var ErrExport = errkind.NewUser("the model cannot be exported")

// exportedFiles are the files of a model folder an export carries beside
// the graph: the config and every tokenizer file a loader may read.
var exportedFiles = []string{"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
	"vocab.txt", "vocab.json", "merges.txt", "spiece.model", "sentencepiece.bpe.model", "spm.model"}

// Export writes the graph qa-shard runs for the checkpoint spec names (a
// folder or a Hub id) into out, an optimum-style folder: model.onnx (and
// model.onnx.data past 2 GiB), config.json and the tokenizer's files. out
// must not exist or be empty; it is written as a temporary folder beside
// it and renamed into place, so it never holds half an export. The
// tokenizer is read first, as a run would: a folder a run refuses is not
// exported. It returns the checkpoint's folder (a Hub id's, resolved).
func Export(spec, out string, o Options, log *zap.Logger) (string, error) {
	if log == nil {
		log = zap.NewNop()
	}
	dir, err := resolve(spec, o.Revision, log)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, qagraph.ModelFile)); err == nil {
		return "", fmt.Errorf("%w: %s already holds %s: it is an ONNX export, which qa-shard runs as it is", ErrExport, dir, qagraph.ModelFile)
	}
	if !checkpoint.Has(dir) {
		return "", fmt.Errorf("%w: %s holds no weights (%v)", ErrExport, dir, checkpoint.WeightFiles)
	}
	if _, _, err := modeldir.OpenWith(dir, o.Mecab); err != nil {
		return "", fmt.Errorf("%w: %w", ErrExport, err)
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return "", fmt.Errorf("%w: --out %s exists and is not empty: choose a new folder (nothing is overwritten)", ErrExport, out)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: --out %s: %w", ErrExport, out, err)
	}
	parent := filepath.Dir(filepath.Clean(out))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(out))+".tmp-")
	if err != nil {
		return "", fmt.Errorf("%w: --out %s: its folder %s cannot be written: %w", ErrExport, out, parent, err)
	}
	defer os.RemoveAll(tmp)
	_, cfg, ck, err := openCheckpoint(dir)
	if err != nil {
		return "", err
	}
	defer ck.Close()
	if _, err := build(tmp, dir, cfg, ck, o.Graph, "", log); err != nil {
		return "", err
	}
	if err := os.Remove(filepath.Join(tmp, entryFile)); err != nil {
		return "", err
	}
	for _, name := range exportedFiles {
		if err := copyFile(filepath.Join(dir, name), filepath.Join(tmp, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: copying %s: %w", ErrExport, name, err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: --out %s: %w", ErrExport, out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("%w: --out %s: %w", ErrExport, out, err)
	}
	return dir, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
