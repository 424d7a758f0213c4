package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// hubServer serves the Hub's URL layout on loopback: /api/models/REPO/
// revision/REV and /REPO/resolve/COMMIT/FILE, with ETags, for the repos
// given (file name to content), requiring the token when one is set.
type hubServer struct {
	repos    map[string]map[string]string
	token    string
	requests atomic.Int32
}

const commit = "0123456789abcdef0123456789abcdef01234567"

func (h *hubServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token {
		http.Error(w, "gated", http.StatusUnauthorized)
		return
	}
	for repo, files := range h.repos {
		if strings.HasPrefix(r.URL.Path, "/api/models/"+repo+"/revision/") {
			var sib []map[string]string
			for name := range files {
				sib = append(sib, map[string]string{"rfilename": name})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"sha": commit, "siblings": sib})
			return
		}
		if name, ok := strings.CutPrefix(r.URL.Path, "/"+repo+"/resolve/"+commit+"/"); ok {
			body, ok := files[name]
			if !ok {
				http.NotFound(w, r)
				return
			}
			sum := sha256.Sum256([]byte(body))
			w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			_, _ = w.Write([]byte(body))
			return
		}
	}
	http.NotFound(w, r)
}

func env(kv map[string]string) Env {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// TestResolveDownloadsThenReadsTheCache: a model absent from the cache is
// downloaded from HF_ENDPOINT with HF_TOKEN into the Hub cache layout
// (blobs by ETag, snapshot links, refs/main), the weights index's shards
// too and nothing the run does not read; then, offline, the same id and a
// commit hash resolve from the cache with no request.
func TestResolveDownloadsThenReadsTheCache(t *testing.T) {
	srv := &hubServer{token: "hf_secret", repos: map[string]map[string]string{"org/model": {
		"config.json": `{"model_type":"bert"}`, "tokenizer.json": "{}", "vocab.txt": "[PAD]\n",
		"model.safetensors.index.json":     `{"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}}`,
		"model-00001-of-00002.safetensors": "A", "model-00002-of-00002.safetensors": "BB",
		"README.md": "not read", "flax_model.msgpack": "not read",
	}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cache := t.TempDir()
	e := map[string]string{"HF_HUB_CACHE": cache, "HF_ENDPOINT": ts.URL, "HF_TOKEN": "hf_secret"}
	var progress []string
	dir, err := Resolve("org/model", Options{Env: env(e), Progress: func(f string, done, total int64) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", f, done, total))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "models--org--model", "snapshots", commit); dir != want {
		t.Errorf("snapshot %s, want %s", dir, want)
	}
	for _, f := range []string{"config.json", "tokenizer.json", "vocab.txt", "model.safetensors.index.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"} {
		st, err := os.Lstat(filepath.Join(dir, f))
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: %v (want a link into blobs)", f, err)
		}
	}
	for _, f := range []string{"README.md", "flax_model.msgpack"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was downloaded", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "model-00002-of-00002.safetensors")); string(b) != "BB" {
		t.Errorf("shard reads %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(cache, "models--org--model", "refs", "main")); string(b) != commit {
		t.Errorf("refs/main = %q", b)
	}
	if !strings.Contains(strings.Join(progress, ";"), "model-00002-of-00002.safetensors 2/2") {
		t.Errorf("progress %v", progress)
	}
	before := srv.requests.Load()
	e["HF_HUB_OFFLINE"] = "1"
	for _, rev := range []string{"", "main", commit} {
		if got, err := Resolve("org/model", Options{Env: env(e), Revision: rev}); err != nil || got != dir {
			t.Errorf("offline, revision %q: %s, %v", rev, got, err)
		}
	}
	if srv.requests.Load() != before {
		t.Errorf("offline resolution made %d requests", srv.requests.Load()-before)
	}
}

// TestResolveRefusals: offline with the model absent, a model the Hub
// does not have, a gated model without a token: each refused naming what
// to do.
func TestResolveRefusals(t *testing.T) {
	srv := &hubServer{repos: map[string]map[string]string{"org/model": {"config.json": "{}", "model.safetensors": "x"}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	gated := &hubServer{token: "t", repos: srv.repos}
	tg := httptest.NewServer(gated)
	defer tg.Close()
	for _, tc := range []struct {
		name, repo string
		env        map[string]string
		sentinel   error
		want       string
	}{
		{"offline", "org/model", map[string]string{"HF_HUB_OFFLINE": "1"}, ErrNotCached, "HF_HUB_OFFLINE is set"},
		{"no such model", "org/other", map[string]string{"HF_ENDPOINT": ts.URL}, ErrHub, "no such model"},
		{"gated", "org/model", map[string]string{"HF_ENDPOINT": tg.URL}, ErrHub, "HF_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["HF_HUB_CACHE"] = t.TempDir()
			_, err := Resolve(tc.repo, Options{Env: env(tc.env)})
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %v saying %q", err, tc.sentinel, tc.want)
			}
		})
	}
}

// TestCacheDirAndToken: the cache and the token are found where
// huggingface_hub looks, in its order.
func TestCacheDirAndToken(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HF_HUB_CACHE": "/a", "HF_HOME": "/b"}, "/a"},
		{map[string]string{"HF_HOME": "/b", "XDG_CACHE_HOME": "/c"}, "/b/hub"},
		{map[string]string{"XDG_CACHE_HOME": "/c"}, "/c/huggingface/hub"},
	} {
		if got, _ := CacheDir(env(tc.env)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "token"), []byte("hf_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Token(env(map[string]string{"HF_HOME": home})); got != "hf_file" {
		t.Errorf("token file: %q", got)
	}
	if got := Token(env(map[string]string{"HF_HOME": home, "HF_TOKEN": "hf_env"})); got != "hf_env" {
		t.Errorf("HF_TOKEN first: %q", got)
	}
	for id, ok := range map[string]bool{"deepset/roberta-base-squad2": true, "bert-base-uncased": true, "./models/x": false, "a/b/c": false, "model.onnx": false} {
		if IsRepoID(id) != ok {
			t.Errorf("IsRepoID(%q) = %v", id, !ok)
		}
	}
}
