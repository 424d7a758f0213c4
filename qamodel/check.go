package qamodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/internal/checkpoint"
	"qa-shard/internal/cli"
	"qa-shard/internal/hub"
	"qa-shard/internal/qagraph"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// Checked is what Check read of a model.
type Checked struct {
	// Folder holds the model ("" for a Hub id not in the cache here).
	Folder string
	// Kind says what the model is, for people: "ONNX export", "BERT
	// checkpoint (safetensors, 201 tensors, 435 MB)", or that a Hub id
	// is not in the cache here.
	Kind string
	// Tok is its tokenizer (nil when Folder is "").
	Tok    *tokenizer.Tokenizer
	Origin modeldir.Origin
}

// Check reads what Open would of the model spec, without ONNX Runtime,
// without building a graph and without the network: for a login node
// before a batch job queues. The folder, or a Hub id's cached snapshot;
// a checkpoint's config.json and the names and shapes of its weights
// (each the config implies, none it has no place for; no weight is
// read); an export's model.onnx beside its config.json; and the
// tokenizer, against the vocabulary and maxSeqLen. A Hub id that is not
// in the cache here is not an error (the run downloads it): Kind says so.
// The graph itself is first parsed when the run opens it.
func Check(spec string, o Options, maxSeqLen int) (Checked, error) {
	dir, err := lookup(spec, o.Revision)
	if errors.Is(err, hub.ErrNotCached) {
		return Checked{Kind: "Hugging Face Hub id not in the Hub cache here: the run downloads it, which needs the network where it runs"}, nil
	}
	if err != nil {
		return Checked{}, err
	}
	c := Checked{Folder: dir, Kind: "ONNX export"}
	onnx := filepath.Join(dir, qagraph.ModelFile)
	if _, serr := os.Stat(onnx); serr != nil && checkpoint.Has(dir) {
		if c.Kind, err = checkCheckpoint(dir); err != nil {
			return Checked{}, err
		}
		onnx = ""
	}
	graph, err := worker.ReadFolder(dir, onnx)
	if err != nil {
		return Checked{}, err
	}
	if c.Tok, c.Origin, err = openTokenizer(graph, o.Mecab, maxSeqLen); err != nil {
		return Checked{}, err
	}
	return c, nil
}

// lookup is resolve without downloading: the folder spec, or a Hub id's
// snapshot in the cache (hub.ErrNotCached when it is not there).
func lookup(spec, revision string) (string, error) {
	if st, err := os.Stat(spec); err == nil && st.IsDir() {
		if revision != "" {
			return "", fmt.Errorf("%w: --revision %s is for a Hub model id, and --model %s is a folder", cli.ErrUsage, revision, spec)
		}
		return spec, nil
	} else if err == nil || !hub.IsRepoID(spec) {
		return spec, nil // worker.ReadFolder says what is wrong with it
	}
	return hub.Lookup(spec, hub.Options{Revision: revision})
}

// checkCheckpoint checks the weights of a save_pretrained folder against
// its config.json as the graph builder would, and says what they are.
func checkCheckpoint(dir string) (string, error) {
	_, cfg, ck, err := openCheckpoint(dir)
	if err != nil {
		return "", err
	}
	defer ck.Close()
	if err := qagraph.Check(cfg, qagraph.FromCheckpoint(ck)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s checkpoint (%s, %d tensors, %.0f MB): its graph is built when the run starts, or taken from the model cache",
		qagraph.Families[cfg.ModelType], ck.Format, len(ck.Names()), float64(ck.Bytes())/1e6), nil
}
