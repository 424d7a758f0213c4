// Package fingerprint hashes what a run's output depends on: the model
// folder's files, the input files' names (and sizes, when ranks split
// them), and values such as the answer-relevant settings and the
// questions, as canonical JSON.
//
// A Fingerprint holds these strings; Compare names what differs between
// two (a resume refused, ranks that do not form one run). The journal
// stores them; the TensorRT engine cache and the tuning cache key on the
// model's. What else a resume compares with the journal (the input files
// read before and their hashes, the output's length, the answers' records
// and digest, the answer and logits parts) is decided here too, as pure
// functions over what input, output and the journal read (resume.go).
package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// bufSize is the read size when hashing: large enough that a multi-GB
// model or corpus is hashed at the speed of sha256, not of syscalls.
const bufSize = 1 << 20

// modelFiles are the files of a model directory that decide its answers.
// model.onnx is required; the others are hashed when present:
// tokenizer.json, config.json, and the external-data files an ONNX export
// larger than 2 GB keeps its weights in. A folder without tokenizer.json
// has its tokenizer converted from slowTokenizerFiles, hashed then.
var modelFiles = []struct {
	name     string
	required bool
}{
	{"model.onnx", true},
	{"tokenizer.json", false},
	{"config.json", false},
	{"model.onnx_data", false},
	{"model.onnx.data", false},
}

// slowTokenizerFiles are the files a tokenizer is converted from when the
// folder has no tokenizer.json (tokenizer/modeldir).
var slowTokenizerFiles = []string{"vocab.txt", "vocab.json", "merges.txt", "sentencepiece.bpe.model", "spm.model",
	"spiece.model", "tokenizer_config.json", "special_tokens_map.json"}

// Model returns "sha256=<hex>" over a model directory's files: its graph
// onnx (model.onnx in dir when ""; the graph built from a checkpoint
// lives elsewhere, with its external data beside it), and the tokenizer
// and config files of dir.
// Each file contributes its name and size before its bytes, so moving bytes
// from one file to another, or adding an optional file, changes the hash.
func Model(dir, onnx string) (string, error) {
	if onnx == "" {
		onnx = filepath.Join(dir, "model.onnx")
	}
	h := sha256.New()
	buf := make([]byte, bufSize)
	files := modelFiles
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); errors.Is(err, fs.ErrNotExist) {
		files = slices.Clone(files)
		for _, n := range slowTokenizerFiles {
			files = append(files, struct {
				name     string
				required bool
			}{n, false})
		}
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		switch f.name {
		case "model.onnx":
			path = onnx
		case "model.onnx_data", "model.onnx.data":
			path = filepath.Join(filepath.Dir(onnx), f.name)
		}
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) && !f.required {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("fingerprinting the model: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f.name, info.Size())
		n, err := hashFile(h, path, buf)
		if err != nil {
			return "", err
		}
		// The size was hashed before the content: a file that changed
		// between the two would give a hash of nothing that exists.
		if n != info.Size() {
			return "", fmt.Errorf("fingerprinting the model: %s changed while it was read", path)
		}
	}
	return "sha256=" + hex.EncodeToString(h.Sum(nil)), nil
}

// value returns "sha256=<hex>" of v's canonical JSON: objects
// with sorted keys, whether v is a struct or a map, and numbers as written.
// So the fingerprint depends on the values only, not on map order or on the
// order of struct fields in the source.
func value(v any) (string, error) {
	b, err := canonicalJSON(v)
	if err != nil {
		return "", fmt.Errorf("fingerprinting a value: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256=" + hex.EncodeToString(sum[:]), nil
}

// Text is v's canonical JSON itself (fingerprint.Fingerprint.SettingsText).
func Text(v any) (string, error) {
	b, err := canonicalJSON(v)
	if err != nil {
		return "", fmt.Errorf("fingerprinting a value: %w", err)
	}
	return string(b), nil
}

// canonicalJSON marshals v, decodes it into generic values (maps, which
// encoding/json writes with sorted keys; json.Number, which keeps a number's
// text exactly) and marshals that again.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var g any
	if err := d.Decode(&g); err != nil {
		return nil, err
	}
	return json.Marshal(g)
}

// hashFile writes path's content into h and returns its length.
func hashFile(h hash.Hash, path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("fingerprinting: %w", err)
	}
	defer f.Close()
	// The wrapper hides *os.File's WriteTo, which would otherwise make
	// CopyBuffer ignore buf and copy in 32 KiB reads.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	if err != nil {
		return n, fmt.Errorf("fingerprinting %s: %w", path, err)
	}
	return n, nil
}
