// Package hub finds a Hugging Face Hub model (org/name) the way
// transformers finds it: in the local Hugging Face cache first
// (HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub,
// else ~/.cache/huggingface/hub; models--org--name/refs/<revision> naming
// a commit, snapshots/<commit>/<files> linking into blobs/), and, when the
// files are not there and the network is allowed (HF_HUB_OFFLINE is not
// set), by downloading them from the Hub (HF_ENDPOINT, a token from
// HF_TOKEN or the token file) into that same layout, so transformers and
// qa-shard share one cache. It downloads only what a question-answering
// run reads: config.json, the tokenizer's files, and the weights
// (safetensors preferred, as transformers prefers them) or an ONNX export.
package hub

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"qa-shard/internal/errkind"
)

// Sentinels, found with errors.Is.
var (
	// ErrNotCached: the model is not in the cache, and the network may
	// not be used (HF_HUB_OFFLINE).
	ErrNotCached = errkind.NewUser("the model is not in the Hugging Face cache")
	// ErrHub: the Hub refused or failed a request (no such model, no
	// access, a network failure).
	ErrHub = errkind.NewUser("the Hugging Face Hub")
)

// repoID is what a Hub model id looks like: name, or org/name.
var repoID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]*(/[A-Za-z0-9][A-Za-z0-9_.\-]*)?$`)

// IsRepoID reports whether s can be a Hub model id (which a path that
// does not exist may also look like: the caller tries the path first).
func IsRepoID(s string) bool {
	return repoID.MatchString(s) && !strings.Contains(s, "..") && !strings.HasSuffix(s, ".onnx")
}

// Env is how the package reads the environment (os.LookupEnv).
type Env func(string) (string, bool)

// CacheDir is the Hub cache transformers uses.
func CacheDir(env Env) (string, error) {
	if v, ok := env("HF_HUB_CACHE"); ok && v != "" {
		return v, nil
	}
	if v, ok := env("HUGGINGFACE_HUB_CACHE"); ok && v != "" {
		return v, nil
	}
	if v, ok := env("HF_HOME"); ok && v != "" {
		return filepath.Join(v, "hub"), nil
	}
	if v, ok := env("XDG_CACHE_HOME"); ok && v != "" {
		return filepath.Join(v, "huggingface", "hub"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no home directory to find ~/.cache/huggingface/hub: set HF_HUB_CACHE", ErrNotCached)
	}
	return filepath.Join(home, ".cache", "huggingface", "hub"), nil
}

// Offline reports whether the network may not be used (HF_HUB_OFFLINE or
// TRANSFORMERS_OFFLINE set to 1, true, yes or on).
func Offline(env Env) bool {
	for _, k := range []string{"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		if v, ok := env(k); ok && slicesContains([]string{"1", "true", "yes", "on"}, strings.ToLower(strings.TrimSpace(v))) {
			return true
		}
	}
	return false
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// repoFolder is a model's folder in the cache: models--org--name.
func repoFolder(cache, repo string) string {
	return filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// commitHash: a revision that is a commit's full hash.
var commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// cached is the snapshot folder of repo at revision, when the cache has
// one that holds a model (config.json and weights or model.onnx).
func cached(cache, repo, revision string) (string, error) {
	dir := repoFolder(cache, repo)
	commit := revision
	if !commitHash.MatchString(revision) {
		b, err := os.ReadFile(filepath.Join(dir, "refs", revision))
		if err != nil {
			return "", err
		}
		commit = strings.TrimSpace(string(b))
	}
	snap := filepath.Join(dir, "snapshots", commit)
	if !complete(snap) {
		return "", fmt.Errorf("%s lacks config.json or the weights", snap)
	}
	return snap, nil
}

// complete: the folder holds config.json and weights or a graph.
func complete(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return false
	}
	for _, name := range weightFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// weightFiles are the files that make a snapshot a model, in the order
// they are preferred.
var weightFiles = []string{"model.onnx", "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json"}

// Options say how Resolve may fetch a model.
type Options struct {
	Revision string // a branch, tag or commit; "" is main
	Env      Env    // nil: os.LookupEnv
	// Progress, when set, is told each file's bytes as they arrive.
	Progress func(file string, done, total int64)
	// Client fetches (nil: the default client).
	Client Doer
}

// Resolve returns the folder holding repo's files at revision: the cached
// snapshot, or, when the cache has none and the network may be used, one
// downloaded now into the cache.
func Resolve(repo string, o Options) (string, error) {
	o, cache, err := o.withDefaults()
	if err != nil {
		return "", err
	}
	snap, cerr := cached(cache, repo, o.Revision)
	if cerr == nil {
		return snap, nil
	}
	if Offline(o.Env) {
		return "", fmt.Errorf("%w: %s at revision %s is not in %s (%w), and HF_HUB_OFFLINE is set: download it where the network is allowed (qa-shard --model %s, or huggingface-cli download %s), or point HF_HUB_CACHE at a cache that has it",
			ErrNotCached, repo, o.Revision, cache, cerr, repo, repo)
	}
	return download(cache, repo, o)
}

// Lookup is Resolve without the network: the cached snapshot of repo at
// o.Revision, or an error wrapping ErrNotCached that says where it looked.
func Lookup(repo string, o Options) (string, error) {
	o, cache, err := o.withDefaults()
	if err != nil {
		return "", err
	}
	snap, err := cached(cache, repo, o.Revision)
	if err != nil {
		return "", fmt.Errorf("%w: %s at revision %s is not in %s (%w)", ErrNotCached, repo, o.Revision, cache, err)
	}
	return snap, nil
}

// withDefaults fills in the environment and the revision, and finds the
// cache.
func (o Options) withDefaults() (Options, string, error) {
	if o.Env == nil {
		o.Env = os.LookupEnv
	}
	if o.Revision == "" {
		o.Revision = "main"
	}
	cache, err := CacheDir(o.Env)
	return o, cache, err
}

// Token is the Hub token: HF_TOKEN, else the token file (HF_TOKEN_PATH,
// else HF_HOME/token, else ~/.cache/huggingface/token); "" for none.
func Token(env Env) string {
	if v, ok := env("HF_TOKEN"); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	if v, ok := env("HUGGING_FACE_HUB_TOKEN"); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	path := ""
	if v, ok := env("HF_TOKEN_PATH"); ok && v != "" {
		path = v
	} else if v, ok := env("HF_HOME"); ok && v != "" {
		path = filepath.Join(v, "token")
	} else if v, ok := env("XDG_CACHE_HOME"); ok && v != "" {
		path = filepath.Join(v, "huggingface", "token")
	} else if home, err := os.UserHomeDir(); err == nil {
		path = filepath.Join(home, ".cache", "huggingface", "token")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Endpoint is the Hub's address: HF_ENDPOINT, else the public Hub.
func Endpoint(env Env) string {
	if v, ok := env("HF_ENDPOINT"); ok && v != "" {
		return strings.TrimRight(v, "/")
	}
	return "https://huggingface.co"
}
