package hub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Doer sends HTTP requests (*http.Client is one).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// tokenizerFiles are the tokenizer files a model folder may hold, each
// fetched when the repository has it.
var tokenizerFiles = []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
	"vocab.txt", "vocab.json", "merges.txt", "spiece.model", "sentencepiece.bpe.model", "spm.model"}

// download fetches repo's files at o.Revision into the cache and returns
// the snapshot folder.
func download(cache, repo string, o Options) (string, error) {
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	d := &downloader{client: client, endpoint: Endpoint(o.Env), token: Token(o.Env), repo: repo, progress: o.Progress}
	info, err := d.info(o.Revision)
	if err != nil {
		return "", err
	}
	var files []string
	for _, s := range info.Siblings {
		files = append(files, s.Name)
	}
	want := []string{"config.json"}
	for _, f := range tokenizerFiles {
		if slices.Contains(files, f) {
			want = append(want, f)
		}
	}
	weights := ""
	for _, w := range weightFiles {
		if slices.Contains(files, w) {
			weights = w
			break
		}
	}
	if !slices.Contains(files, "config.json") || weights == "" {
		return "", fmt.Errorf("%w: %s has no config.json with weights (%s) at its top: not a model qa-shard can answer with", ErrHub, repo, strings.Join(weightFiles, ", "))
	}
	want = append(want, weights)
	if weights == "model.onnx" {
		for _, extra := range []string{"model.onnx_data", "model.onnx.data"} {
			if slices.Contains(files, extra) {
				want = append(want, extra)
			}
		}
	}
	root := repoFolder(cache, repo)
	snap := filepath.Join(root, "snapshots", info.SHA)
	for _, f := range want {
		if err := d.fetch(root, snap, info.SHA, f); err != nil {
			return "", err
		}
	}
	if strings.HasSuffix(weights, ".index.json") {
		shards, err := shardsOf(filepath.Join(snap, weights))
		if err != nil {
			return "", err
		}
		for _, s := range shards {
			if err := d.fetch(root, snap, info.SHA, s); err != nil {
				return "", err
			}
		}
	}
	if info.SHA != o.Revision {
		if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(root, "refs", o.Revision), []byte(info.SHA), 0o644); err != nil {
			return "", err
		}
	}
	return snap, nil
}

type downloader struct {
	client          Doer
	endpoint, token string
	repo            string
	progress        func(file string, done, total int64)
}

type repoInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		Name string `json:"rfilename"`
	} `json:"siblings"`
}

func (d *downloader) get(u string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if d.token != "" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w (no network? set HF_HUB_OFFLINE=1 to use the cache only, or HF_ENDPOINT for a mirror)", ErrHub, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		why := ""
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			why = ": the model is gated or private: accept its terms on the Hub and give a token (HF_TOKEN, or huggingface-cli login)"
		case http.StatusNotFound:
			why = ": no such model or file (check the id and --revision)"
		}
		return nil, fmt.Errorf("%w: GET %s: %s%s", ErrHub, u, resp.Status, why)
	}
	return resp, nil
}

// info is the repository's commit and file list at revision.
func (d *downloader) info(revision string) (repoInfo, error) {
	resp, err := d.get(fmt.Sprintf("%s/api/models/%s/revision/%s", d.endpoint, d.repo, url.PathEscape(revision)))
	if err != nil {
		return repoInfo{}, err
	}
	defer resp.Body.Close()
	var info repoInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || !commitHash.MatchString(info.SHA) {
		if err == nil {
			err = fmt.Errorf("the commit %q is no hash", info.SHA)
		}
		return info, fmt.Errorf("%w: %s's model info is not what the Hub answers: %w", ErrHub, d.repo, err)
	}
	return info, nil
}

// fetch downloads one file into blobs/<etag> and links it from the
// snapshot, as huggingface_hub lays a cache out. A blob already there is
// not fetched again.
func (d *downloader) fetch(root, snap, commit, file string) error {
	link := filepath.Join(snap, filepath.FromSlash(file))
	if _, err := os.Stat(link); err == nil {
		return nil
	}
	resp, err := d.get(fmt.Sprintf("%s/%s/resolve/%s/%s", d.endpoint, d.repo, commit, file))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	etag := resp.Header.Get("X-Linked-Etag")
	if etag == "" {
		etag = resp.Header.Get("ETag")
	}
	etag = strings.Trim(strings.TrimPrefix(etag, "W/"), `"`)
	if etag == "" || strings.ContainsAny(etag, `/\`) {
		return fmt.Errorf("%w: %s of %s came without an ETag to store it by", ErrHub, file, d.repo)
	}
	blobs := filepath.Join(root, "blobs")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return err
	}
	blob := filepath.Join(blobs, etag)
	if _, err := os.Stat(blob); err != nil {
		tmp := blob + ".incomplete"
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, &progressReader{r: resp.Body, file: file, total: resp.ContentLength, report: d.progress})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("%w: downloading %s of %s: %w", ErrHub, file, d.repo, err)
		}
		if resp.ContentLength >= 0 {
			if st, err := os.Stat(tmp); err == nil && st.Size() != resp.ContentLength {
				os.Remove(tmp)
				return fmt.Errorf("%w: %s of %s: %d bytes arrived of %d", ErrHub, file, d.repo, st.Size(), resp.ContentLength)
			}
		}
		if err := os.Rename(tmp, blob); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(link), blob)
	if err != nil {
		return err
	}
	if err := os.Symlink(rel, link); err != nil && !os.IsExist(err) {
		return err
	}
	return nil
}

// shardsOf lists the files a weights index names.
func shardsOf(index string) ([]string, error) {
	b, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrHub, index, err)
	}
	var shards []string
	for _, s := range idx.WeightMap {
		if !slices.Contains(shards, s) && filepath.Base(s) == s {
			shards = append(shards, s)
		}
	}
	slices.Sort(shards)
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: %s names no shard", ErrHub, index)
	}
	return shards, nil
}

// progressReader tells report how much of a file has arrived.
type progressReader struct {
	r      io.Reader
	file   string
	done   int64
	total  int64
	report func(file string, done, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.report != nil && (n > 0 || err == io.EOF) {
		p.report(p.file, p.done, p.total)
	}
	return n, err
}
