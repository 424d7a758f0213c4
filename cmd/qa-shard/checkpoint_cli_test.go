package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testmodel"
)

// TestExport: qa-shard export writes the graph it builds from a
// checkpoint as an optimum-style folder that answers as the checkpoint
// does, with ONNX Runtime's fused operators by default and ONNX's own with
// --graph standard (the same answers); --precision fp16 --check-input
// writes the float16 graph and checks its answers against float32's on
// the documents given; an --out that is not empty, and a folder that
// already is an ONNX export, are refused (exit 2) and nothing is written.
func TestExport(t *testing.T) {
	ck := filepath.Join(checkpoints(t), testmodel.Checkpoints[0].Name)
	out := filepath.Join(t.TempDir(), "exported")
	code, _, stderr := capture(t, func() int {
		return dispatch([]string{"export", "--log-format", "json", "--model", ck, "--out", out})
	})
	if code != exitOK {
		t.Fatalf("export: exit %d:\n%s", code, stderr)
	}
	for _, f := range []string{"model.onnx", "config.json", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the export lacks %s", f)
		}
	}
	in := writeLines(t, `{"id": "a", "context": "Ada Lovelace founded the company in London."}`)
	// answer is the model's answer: its text and offsets exactly, its
	// score and logits to 1e-4 (the fused graph sums in another order).
	answer := func(model string) string {
		o := filepath.Join(t.TempDir(), "a.jsonl")
		if code, stderr := runCLI(t, "--devices", "cpu:1", "--model", model, "--model-cache", "none", "--input", in, "--question", "Who founded it?", "--output", o); code != exitOK {
			t.Fatalf("run on %s: exit %d:\n%s", model, code, stderr)
		}
		r := readRecords(t, o)[0]
		return fmt.Sprintf("%v %v %v %.4f %.4f %.4f", r["answer"], r["start"], r["end"], r["score"], r["span_logit"], r["null_logit"])
	}
	if a, b := answer(ck), answer(out); a != b {
		t.Errorf("the export answers %s, the checkpoint %s", b, a)
	}
	std := filepath.Join(t.TempDir(), "standard")
	code, _, stderr = capture(t, func() int {
		return dispatch([]string{"export", "--log-format", "json", "--model", ck, "--out", std, "--graph", "standard"})
	})
	if code != exitOK {
		t.Fatalf("export --graph standard: exit %d:\n%s", code, stderr)
	}
	if a, b := answer(std), answer(out); a != b {
		t.Errorf("the standard graph answers %s, the fused one %s", a, b)
	}
	for dir, fused := range map[string]bool{out: true, std: false} {
		b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
		must(t, err)
		if got := strings.Contains(string(b), "com.microsoft") && strings.Contains(string(b), "SkipLayerNormalization"); got != fused {
			t.Errorf("%s: ONNX Runtime's fused operators: %v, want %v", dir, got, fused)
		}
	}
	half := filepath.Join(t.TempDir(), "fp16")
	code, _, stderr = capture(t, func() int {
		return dispatch([]string{"export", "--log-format", "json", "--ort-lib", ortLib, "--model", ck, "--out", half, "--precision", "fp16",
			"--check-input", "testdata/golden-docs.jsonl", "--question", "Who founded the company?", "--check-min-f1", "1"})
	})
	if code != exitOK || !strings.Contains(messages(t, stderr), "the fp16 copy's answers against float32's") {
		t.Fatalf("export --precision fp16 --check-input: exit %d:\n%s", code, stderr)
	}
	for _, tc := range []struct {
		model, out, want string
	}{
		{ck, out, "exists and is not empty"},
		{out, filepath.Join(t.TempDir(), "again"), "already holds model.onnx"},
	} {
		code, _, stderr := capture(t, func() int {
			return dispatch([]string{"export", "--log-format", "json", "--model", tc.model, "--out", tc.out})
		})
		if code != exitUsage || !strings.Contains(messages(t, stderr), tc.want) {
			t.Errorf("export --model %s --out %s: exit %d, want %d saying %q:\n%s", tc.model, tc.out, code, exitUsage, tc.want, stderr)
		}
	}
}

// hubFiles serves one model's files in the Hub's URL layout.
type hubFiles struct {
	repo  string
	files map[string][]byte
}

const hubCommit = "89abcdef0123456789abcdef0123456789abcdef"

func (h hubFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/models/"+h.repo+"/revision/") {
		var sib []map[string]string
		for name := range h.files {
			sib = append(sib, map[string]string{"rfilename": name})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"sha": hubCommit, "siblings": sib})
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/"+h.repo+"/resolve/"+hubCommit+"/")
	if b, found := h.files[name]; ok && found {
		sum := sha256.Sum256(b)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		_, _ = w.Write(b)
		return
	}
	http.NotFound(w, r)
}

// TestHubModelID: --model org/name with the model absent from the
// Hugging Face cache downloads it from HF_ENDPOINT (a loopback server in
// the Hub's layout) into the cache and answers as the folder does; a
// second run finds it in the cache with HF_HUB_OFFLINE=1; an id the
// offline cache lacks is refused (exit 2) saying so.
func TestHubModelID(t *testing.T) {
	ck := filepath.Join(checkpoints(t), testmodel.Checkpoints[0].Name)
	files := map[string][]byte{}
	entries, _ := os.ReadDir(ck)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(ck, e.Name()))
		must(t, err)
		files[e.Name()] = b
	}
	srv := httptest.NewServer(hubFiles{repo: "qa-shard/tiny-bert", files: files})
	defer srv.Close()
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_HUB_OFFLINE", "")
	in := writeLines(t, `{"id": "a", "context": "Ada Lovelace founded the company in London."}`)
	run := func(model string) (int, string, string) {
		o := filepath.Join(t.TempDir(), "a.jsonl")
		code, stderr := runCLI(t, "--devices", "cpu:1", "--model", model, "--model-cache", "none", "--input", in, "--question", "Who founded it?", "--output", o)
		b, _ := os.ReadFile(o)
		return code, string(b), stderr
	}
	code, fromHub, stderr := run("qa-shard/tiny-bert")
	if code != exitOK {
		t.Fatalf("--model qa-shard/tiny-bert: exit %d:\n%s", code, stderr)
	}
	_, fromFolder, _ := run(ck)
	if fromHub != fromFolder {
		t.Errorf("from the Hub id %s, from the folder %s", fromHub, fromFolder)
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	srv.Close()
	if code, again, stderr := run("qa-shard/tiny-bert"); code != exitOK || again != fromHub {
		t.Errorf("offline from the cache: exit %d:\n%s", code, stderr)
	}
	code, _, stderr = run("qa-shard/not-downloaded")
	if msg := messages(t, stderr); code != exitUsage || !strings.Contains(msg, "HF_HUB_OFFLINE is set") || !strings.Contains(msg, "no folder here") {
		t.Errorf("an id the offline cache lacks: exit %d:\n%s", code, stderr)
	}
}
