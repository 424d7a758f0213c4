package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// slowFolder copies the tiny RoBERTa model's folder with its tokenizer.json
// replaced by the slow tokenizer's files (vocab.json and merges.txt,
// written from that tokenizer.json's model), as a folder saved by older
// code holds them; edit changes the copy.
func slowFolder(t *testing.T, edit func(dir string)) string {
	t.Helper()
	src := familyModel(t, "roberta")
	dst := copyFolder(t, src, "tokenizer.json")
	raw, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	must(t, err)
	var tj struct {
		Model struct {
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	must(t, json.Unmarshal(raw, &tj))
	vocab, err := json.Marshal(tj.Model.Vocab)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dst, "vocab.json"), vocab, 0o644))
	var merges strings.Builder
	merges.WriteString("#version: 0.2\n")
	for _, m := range tj.Model.Merges {
		var s string
		if json.Unmarshal(m, &s) != nil {
			var p [2]string
			must(t, json.Unmarshal(m, &p))
			s = p[0] + " " + p[1]
		}
		merges.WriteString(s + "\n")
	}
	must(t, os.WriteFile(filepath.Join(dst, "merges.txt"), []byte(merges.String()), 0o644))
	if edit != nil {
		edit(dst)
	}
	return dst
}

// TestFolderWithoutTokenizerJSON: a model folder holding vocab.json and
// merges.txt instead of tokenizer.json answers every document as the same
// folder with tokenizer.json does, and the log says which files were
// converted; a folder whose tokenizer_config.json is not JSON exits 2,
// naming the file, before any document is read.
func TestFolderWithoutTokenizerJSON(t *testing.T) {
	in := writeCorpus(t, 10, 7)
	answers := func(model string) (string, string) {
		out := filepath.Join(t.TempDir(), "answers.jsonl")
		code, stderr := runCLI(t, "--model", model, "--input", in, "--question", "Who?", "--output", out, "--top-k", "3")
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		return mustRead(t, out), stderr
	}
	want, _ := answers(familyModel(t, "roberta"))
	got, log := answers(slowFolder(t, nil))
	if got != want {
		t.Fatalf("answers from the converted folder differ:\n got %.400s\nwant %.400s", got, want)
	}
	if !strings.Contains(log, "converted as") || !strings.Contains(log, "vocab.json") || !strings.Contains(log, "merges.txt") || !strings.Contains(log, "RobertaConverter") {
		t.Fatalf("the log does not say what was converted:\n%s", log)
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "its tokenizer was") && strings.Count(line, "vocab.json") != 1 {
			t.Errorf("the tokenizer's line names its files more than once: %s", line)
		}
	}

	bad := slowFolder(t, func(d string) {
		must(t, os.WriteFile(filepath.Join(d, "tokenizer_config.json"), []byte(`{"tokenizer_class": "Rob`), 0o644))
	})
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--model", bad, "--input", in, "--question", "Who?", "--output", out)
	if code != exitUsage || !strings.Contains(stderr, "tokenizer_config.json is not valid JSON") {
		t.Fatalf("exit %d, want %d naming tokenizer_config.json:\n%s", code, exitUsage, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("%s was written: the folder was refused after documents were read", out)
	}
}

// bertSlowFolder copies the tiny BERT model's folder with its tokenizer.json
// replaced by vocab.txt (written from that tokenizer.json's vocabulary, in
// id order) and a tokenizer_config.json naming BertTokenizer, as a folder
// saved by older code holds them; it returns the folder and the size of
// its vocabulary.
func bertSlowFolder(t *testing.T) (string, int) {
	t.Helper()
	src := model(t, "tiny")
	dst := copyFolder(t, src, "tokenizer.json", "tokenizer_config.json")
	raw, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	must(t, err)
	var tj struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	must(t, json.Unmarshal(raw, &tj))
	lines := make([]string, len(tj.Model.Vocab))
	for tok, id := range tj.Model.Vocab {
		lines[id] = tok
	}
	must(t, os.WriteFile(filepath.Join(dst, "vocab.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dst, "tokenizer_config.json"), []byte(`{"tokenizer_class": "BertTokenizer"}`), 0o644))
	return dst, len(lines)
}

// TestAddedTokensJSON: a slow BERT folder's added_tokens.json is read:
// tokenize lists the file among those read and shows the added word as
// one token with the file's id; a run refuses (exit 2, before any
// document) an added id past config.json's vocab_size, which the model's
// embeddings do not have, and refuses a gap in the ids naming the file.
func TestAddedTokensJSON(t *testing.T) {
	dir, size := bertSlowFolder(t)
	var cfg struct {
		VocabSize int `json:"vocab_size"`
	}
	must(t, json.Unmarshal([]byte(mustRead(t, filepath.Join(dir, "config.json"))), &cfg))
	if cfg.VocabSize != size {
		t.Fatalf("config.json vocab_size %d, vocab.txt %d tokens: the test needs them equal", cfg.VocabSize, size)
	}
	must(t, os.WriteFile(filepath.Join(dir, "added_tokens.json"), []byte(fmt.Sprintf(`{"zorbulon": %d}`, size)), 0o644))
	code, stdout, stderr := tokenizeOut(t, "--model", dir, "Zorbulon founded it.")
	if code != exitOK {
		t.Fatalf("tokenize: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, filepath.Join(dir, "added_tokens.json")) || !strings.Contains(stdout, fmt.Sprintf(`"zorbulon"         id %d`, size)) {
		t.Errorf("tokenize does not list added_tokens.json or show zorbulon whole with id %d:\n%s", size, stdout)
	}
	in := writeCorpus(t, 5, 3)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr = runCLI(t, "--model", dir, "--input", in, "--question", "Who?", "--output", out)
	if code != exitUsage || !strings.Contains(stderr, "vocab_size") {
		t.Fatalf("an added id past vocab_size: exit %d, want %d naming vocab_size:\n%s", code, exitUsage, stderr)
	}
	must(t, os.WriteFile(filepath.Join(dir, "added_tokens.json"), []byte(fmt.Sprintf(`{"zorbulon": %d}`, size+3)), 0o644))
	code, stderr = runCLI(t, "--model", dir, "--input", in, "--question", "Who?", "--output", out)
	if code != exitUsage || !strings.Contains(stderr, "added_tokens.json") || !strings.Contains(stderr, fmt.Sprintf("the id %d", size+3)) {
		t.Fatalf("a gap: exit %d, want %d naming added_tokens.json:\n%s", code, exitUsage, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written by a refused run", out)
	}
}

// copyFolder copies the files of the folder src, but those named in skip,
// into a new folder.
func copyFolder(t *testing.T, src string, skip ...string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	must(t, err)
	for _, e := range entries {
		if e.IsDir() || slices.Contains(skip, e.Name()) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dst, e.Name()), raw, 0o644))
	}
	return dst
}
