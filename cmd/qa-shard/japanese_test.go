package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testmodel"
	"qa-shard/tokenizer/mecab/mecabtest"
)

// japaneseModel is a random-weight tiny BERT sized to the real
// bert-base-japanese-v3 vocabulary, in a folder shaped as optimum exports
// a cl-tohoku model: vocab.txt and a BertJapaneseTokenizer
// tokenizer_config.json (MeCab with IPAdic, WordPiece), no tokenizer.json.
func japaneseModel(t *testing.T) string {
	t.Helper()
	src, err := testenv.RealTokenizer("bert-base-japanese-v3")
	testenv.Need(t, err)
	mecabtest.Require(t, "ipadic-utf8")
	raw, err := os.ReadFile(filepath.Join(src, "vocab.txt"))
	must(t, err)
	vocab := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	dir := t.TempDir()
	p := testmodel.Tiny
	p.VocabSize = len(vocab)
	must(t, testmodel.Generate(dir, p, vocab))
	must(t, os.Remove(filepath.Join(dir, "tokenizer.json")))
	must(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"tokenizer_class": "BertJapaneseTokenizer",
 "do_lower_case": false, "word_tokenizer_type": "mecab", "subword_tokenizer_type": "wordpiece",
 "mecab_kwargs": {"mecab_dic": "ipadic"}}`), 0o644))
	return dir
}

// japaneseDocs writes documents made of the Japanese goldens' texts (man
// pages, Debian policy, hostile strings), consecutive lines joined by
// newlines into documents of up to about 3,000 chars, past one window.
func japaneseDocs(t *testing.T) (string, map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "tokenizer", "modeldir", "testdata", "japanese", "texts.jsonl.gz"))
	must(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	must(t, err)
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var lines []string
	for sc.Scan() {
		var s string
		must(t, json.Unmarshal(sc.Bytes(), &s))
		lines = append(lines, s)
	}
	must(t, sc.Err())
	docs := map[string]string{}
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	out, err := os.Create(path)
	must(t, err)
	defer out.Close()
	enc := json.NewEncoder(out)
	size := []int{200, 3000, 40, 1200}
	var cur []string
	n := 0
	flush := func() {
		id := fmt.Sprintf("ja%03d", len(docs))
		docs[id] = strings.Join(cur, "\n")
		must(t, enc.Encode(map[string]string{"id": id, "context": docs[id]}))
		cur, n = cur[:0], 0
	}
	// Every 5th line, and each hostile string at the end, as far as 60
	// documents go.
	for i := 0; i < len(lines) && len(docs) < 60; i++ {
		if i < len(lines)-26 && i%5 != 0 {
			continue
		}
		cur = append(cur, lines[i])
		n += len([]rune(lines[i]))
		if n >= size[len(docs)%len(size)] {
			flush()
		}
	}
	if len(cur) > 0 {
		flush()
	}
	return path, docs
}

// TestJapaneseAnswersAreSpans: qa-shard runs a MeCab Japanese BERT on
// Japanese documents, and every answer and candidate, with and without
// align_to_words, is exactly the context's text between its start and end
// (code points).
func TestJapaneseAnswersAreSpans(t *testing.T) {
	model := japaneseModel(t)
	in, docs := japaneseDocs(t)
	for _, align := range []string{"true", "false"} {
		out := filepath.Join(t.TempDir(), "answers.jsonl")
		code, stderr := runCLI(t, "--model", model, "--input", in, "--question", "この文書は何について説明していますか？",
			"--question", "ＡＰＩの名前は?", "--output", out, "--top-k", "3", "--align-to-words="+align, "--max-seq-len", "128", "--doc-stride", "32")
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "MeCab") || !strings.Contains(stderr, "IPAdic 2.7.0") {
			t.Errorf("the log does not say which MeCab and dictionary:\n%.2000s", stderr)
		}
		recs := readRecords(t, out)
		if len(recs) != 2*len(docs) {
			t.Fatalf("%d records for %d documents and 2 questions", len(recs), len(docs))
		}
		checked, multi := 0, 0
		for _, r := range recs {
			ctx := []rune(docs[r["id"].(string)])
			if r["windows"].(float64) > 1 {
				multi++
			}
			cands := []map[string]any{r}
			if list, ok := r["answers"].([]any); ok {
				for _, c := range list {
					cands = append(cands, c.(map[string]any))
				}
			}
			for _, c := range cands {
				start, end := int(c["start"].(float64)), int(c["end"].(float64))
				if start < 0 || end < start || end > len(ctx) {
					t.Fatalf("%s: [%d, %d) outside %d chars", r["id"], start, end, len(ctx))
				}
				if got := string(ctx[start:end]); got != c["answer"].(string) {
					t.Errorf("%s (align %s): answer %q, context[%d:%d] is %q", r["id"], align, c["answer"], start, end, got)
				}
				checked++
			}
		}
		if multi == 0 {
			t.Errorf("no document took more than one window")
		}
		t.Logf("align_to_words %s: %d documents, %d answers checked, %d records over several windows", align, len(docs), checked, multi)
	}
}
