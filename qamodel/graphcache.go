package qamodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/checkpoint"
	"qa-shard/internal/errkind"
	"qa-shard/internal/qagraph"
)

// A checkpoint folder's graph is built once and kept in a cache outside
// the model folder (which may be read-only, or shared by every rank of a
// job): <cache>/graphs/<key>/, the key hashing the builder's version, the
// folder's config.json and its weight files' contents, so a changed
// checkpoint or a new builder gets a new entry. An entry records the
// SHA-256 of each file it holds (entry.json) and is checked against them
// before it is used: a damaged entry is rebuilt, never used. An entry is
// built in a temporary folder beside it and renamed into place, so ranks
// building the same entry at once each end with a whole one.

// CacheOff is the --model-cache value that keeps no cache: the graph is
// built for this run into a temporary folder and removed after it.
const CacheOff = "none"

// ErrCache marks a cache that cannot be used (not writable).
var ErrCache = errkind.NewUser("the model cache cannot be used")

// entry is an entry's record: what it was built from and its files.
type entry struct {
	Key     string             `json:"key"`
	Builder string             `json:"builder"`
	Source  string             `json:"source"` // the model folder, for people
	Built   string             `json:"built"`  // RFC 3339
	Files   map[string]fileSum `json:"files"`
}

type fileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

const entryFile = "entry.json"

// cacheDir is --model-cache's folder: "" the user's cache directory.
func cacheDir(name string) (string, error) {
	if name != "" {
		return name, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: no user cache directory (%w): pass --model-cache DIR", ErrCache, err)
	}
	return filepath.Join(base, "qa-shard", "models"), nil
}

// builtGraph returns the path of the graph built from the checkpoint in
// dir, from the cache or built now, and a cleanup for a graph built
// without a cache.
func builtGraph(dir, cache string, g Graph, log *zap.Logger) (string, func(), error) {
	cfgBytes, cfg, ck, err := openCheckpoint(dir)
	if err != nil {
		return "", nil, err
	}
	defer ck.Close()
	if cache == CacheOff {
		tmp, err := os.MkdirTemp("", "qa-shard-model-")
		if err != nil {
			return "", nil, err
		}
		cleanup := func() { os.RemoveAll(tmp) }
		if _, err := build(tmp, dir, cfg, ck, g, "", log); err != nil {
			cleanup()
			return "", nil, err
		}
		return filepath.Join(tmp, qagraph.ModelFile), cleanup, nil
	}
	root, err := cacheDir(cache)
	if err != nil {
		return "", nil, err
	}
	graphs := filepath.Join(root, "graphs")
	if err := os.MkdirAll(graphs, 0o755); err != nil {
		return "", nil, fmt.Errorf("%w: %w: pass --model-cache DIR (a folder you can write) or --model-cache none", ErrCache, err)
	}
	key, err := cacheKey(cfgBytes, ck, g, filepath.Join(root, "digests.json"))
	if err != nil {
		return "", nil, err
	}
	final := filepath.Join(graphs, key[:32])
	switch err := verify(final, key); {
	case err == nil:
		log.Info("model graph from the cache", zap.String("model", dir), zap.String("graph", final))
		return filepath.Join(final, qagraph.ModelFile), func() {}, nil
	case !errors.Is(err, fs.ErrNotExist):
		log.Warn("model cache entry damaged: building it again", zap.String("entry", final), zap.Error(err))
	}
	tmp, err := os.MkdirTemp(graphs, ".build-"+key[:12]+"-")
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrCache, err)
	}
	defer os.RemoveAll(tmp) // what is left when the rename did not take it
	if _, err := build(tmp, dir, cfg, ck, g, key, log); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process put the entry in place first (a rank of the
		// same job), or a damaged one is in the way.
		if verify(final, key) != nil {
			if rerr := os.RemoveAll(final); rerr != nil {
				return "", nil, fmt.Errorf("%w: replacing the damaged entry %s: %w", ErrCache, final, rerr)
			}
			if err := os.Rename(tmp, final); err != nil {
				return "", nil, fmt.Errorf("%w: %w", ErrCache, err)
			}
		}
	}
	if err := verify(final, key); err != nil {
		return "", nil, fmt.Errorf("%w: the entry just built does not verify: %w", ErrCache, err)
	}
	return filepath.Join(final, qagraph.ModelFile), func() {}, nil
}

// openCheckpoint reads the config.json of the save_pretrained folder dir
// (its bytes and what they say) and maps its weights.
func openCheckpoint(dir string) ([]byte, qagraph.Config, *checkpoint.Checkpoint, error) {
	cfgPath := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, qagraph.Config{}, nil, fmt.Errorf("%w: %s has weights but no readable config.json (%w): a save_pretrained folder holds both", qagraph.ErrConfig, dir, err)
	}
	cfg, err := qagraph.ParseConfig(cfgPath, b)
	if err != nil {
		return nil, qagraph.Config{}, nil, err
	}
	ck, err := checkpoint.Open(dir)
	if err != nil {
		return nil, qagraph.Config{}, nil, err
	}
	return b, cfg, ck, nil
}

// build writes the graph into the folder out with its entry record.
func build(out, dir string, cfg qagraph.Config, ck *checkpoint.Checkpoint, g Graph, key string, log *zap.Logger) (qagraph.Result, error) {
	start := time.Now()
	log.Info("building the model graph from the checkpoint (once: the graph is cached)", zap.String("model", dir),
		zap.String("model_type", cfg.ModelType), zap.String("weights", ck.Format), zap.Int64("weight_bytes", ck.Bytes()), zap.Stringer("graph", g))
	res, err := qagraph.Build(out, cfg, qagraph.FromCheckpoint(ck), g.options()...)
	if err != nil {
		return res, fmt.Errorf("building the graph of %s: %w", dir, err)
	}
	e := entry{Key: key, Builder: qagraph.Version, Source: dir, Built: time.Now().UTC().Format(time.RFC3339), Files: map[string]fileSum{}}
	names := []string{qagraph.ModelFile}
	if res.External {
		names = append(names, qagraph.DataFile)
	}
	for _, n := range names {
		s, err := sumFile(filepath.Join(out, n))
		if err != nil {
			return res, err
		}
		e.Files[n] = s
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return res, err
	}
	if err := os.WriteFile(filepath.Join(out, entryFile), b, 0o644); err != nil {
		return res, fmt.Errorf("%w: %w", ErrCache, err)
	}
	log.Info("model graph built", zap.String("model", dir), zap.Duration("took", time.Since(start).Round(time.Millisecond)),
		zap.Int64("bytes", res.Bytes), zap.Bool("external_data", res.External))
	return res, nil
}

// verify checks an entry: its record names the key, and each file has
// the size and SHA-256 recorded. fs.ErrNotExist when there is none.
func verify(dir, key string) error {
	b, err := os.ReadFile(filepath.Join(dir, entryFile))
	if err != nil {
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return fs.ErrNotExist
		}
		return fmt.Errorf("no readable %s: %w", entryFile, err)
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("%s: %w", entryFile, err)
	}
	if e.Key != key || len(e.Files) == 0 || e.Files[qagraph.ModelFile] == (fileSum{}) {
		return fmt.Errorf("%s names another key or no model", entryFile)
	}
	for name, want := range e.Files {
		got, err := sumFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s has %d bytes, sha256 %.12s; its record says %d bytes, %.12s", name, got.Size, got.SHA256, want.Size, want.SHA256)
		}
	}
	return nil
}

func sumFile(path string) (fileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileSum{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fileSum{}, err
	}
	return fileSum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// cacheKey hashes the builder's version, the graph's kind, config.json and every weight
// file's name and contents. A file's digest is remembered in digests
// (keyed by its path, device, inode, size and modification time), so a
// second run reads no weight file to find its entry.
func cacheKey(cfg []byte, ck *checkpoint.Checkpoint, g Graph, digests string) (string, error) {
	memo := map[string]string{}
	if b, err := os.ReadFile(digests); err == nil {
		_ = json.Unmarshal(b, &memo) // a damaged memo only costs hashing again
	}
	h := sha256.New()
	fmt.Fprintf(h, "qagraph %s\x00%s\x00", qagraph.Version, g)
	h.Write(cfg)
	changed := false
	for _, path := range ck.Files {
		st, err := os.Stat(path)
		if err != nil {
			return "", err
		}
		id := statKey(path, st)
		sum, ok := memo[id]
		if !ok {
			s, err := sumFile(path)
			if err != nil {
				return "", err
			}
			sum, memo[id], changed = s.SHA256, s.SHA256, true
		}
		fmt.Fprintf(h, "\x00%s\x00%s", filepath.Base(path), sum)
	}
	if changed {
		if b, err := json.Marshal(memo); err == nil {
			tmp := digests + ".tmp-" + strconv.Itoa(os.Getpid())
			if os.WriteFile(tmp, b, 0o644) == nil {
				_ = os.Rename(tmp, digests)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// statKey identifies a file's contents as far as its metadata can.
func statKey(path string, st os.FileInfo) string {
	abs, _ := filepath.Abs(path)
	var dev, ino uint64
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(s.Dev), s.Ino
	}
	return fmt.Sprintf("%s|%d|%d|%d|%d", abs, dev, ino, st.Size(), st.ModTime().UnixNano())
}
