package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testfixtures"
	"qa-shard/qa"
	"qa-shard/tokenizer"
)

// record is one window of a windows file, as train.py reads it.
type record struct {
	n, qstart, qlen, cstart, cend, start, end int32
	ids, types                                []int32
}

func readRecords(t *testing.T, path string) []record {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]int32, len(raw)/4)
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, v); err != nil {
		t.Fatal(err)
	}
	if len(v) == 0 || v[0] != windowsMagic {
		t.Fatalf("%s does not start with the magic", path)
	}
	var out []record
	for i := 1; i < len(v); {
		r := record{n: v[i], qstart: v[i+1], qlen: v[i+2], cstart: v[i+3], cend: v[i+4], start: v[i+5], end: v[i+6]}
		j := i + 7
		r.ids, r.types = v[j:j+int(r.n)], v[j+int(r.n):j+2*int(r.n)]
		out = append(out, r)
		i = j + 2*int(r.n)
	}
	return out
}

// corpus writes documents and gold answers (tokens from tok) for writeWindows.
func corpus(t *testing.T, dir string, tok *tokenizer.Tokenizer) (docsPath, goldPath string) {
	t.Helper()
	facts := []struct{ q, sentence, answer string }{
		{"Where is the headquarters?", "Its headquarters moved to Valparaíso in 1966. ", "Valparaíso"},
		{"Who founded the company?", "Ada Lovelace founded the company in Dublin. ", "Ada Lovelace"},
	}
	var docs, golds bytes.Buffer
	for d := range 3 {
		text := strings.Repeat("The small market expanded the old harbor near Dublin. ", 4+5*d)
		for i, f := range facts {
			text += f.sentence + strings.Repeat("The quiet team rebuilt the new bridge. ", 3+d*i)
		}
		id := fmt.Sprintf("doc-%d", d)
		if err := json.NewEncoder(&docs).Encode(map[string]string{"id": id, "context": text}); err != nil {
			t.Fatal(err)
		}
		ctx := tok.Encode(text)
		for _, f := range facts {
			start := len([]rune(text[:strings.Index(text, f.sentence)+strings.Index(f.sentence, f.answer)]))
			token := slices.IndexFunc(ctx.Offsets, func(o qa.Span) bool { return int(o.Start) == start })
			g := gold{ID: id, Question: f.q, Start: start, End: start + len([]rune(f.answer)), Token: token}
			if err := json.NewEncoder(&golds).Encode(g); err != nil {
				t.Fatal(err)
			}
		}
	}
	docsPath, goldPath = filepath.Join(dir, "docs.jsonl"), filepath.Join(dir, "gold.jsonl")
	if err := os.WriteFile(docsPath, docs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldPath, golds.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return docsPath, goldPath
}

// oldWindow is the first windows format (n, question length, start, end,
// ids), for BERT only: train.py derived everything else from it.
func oldWindow(w *bufio.Writer, l labelled) {
	binary.Write(w, binary.LittleEndian, []int32{int32(len(l.win.IDs)), int32(l.win.QuestionLen), int32(l.start), int32(l.end)})
	binary.Write(w, binary.LittleEndian, l.win.IDs)
}

// TestWindowsBERT: for BERT the file holds what the first format held (the
// demo model retrains byte for byte), and what train.py used to derive from
// the question length, now written out, is what it derived: type ids 1
// from the context on, the context between [SEP]s, [CLS] at 0; the layout
// gives BERT's ids.
func TestWindowsBERT(t *testing.T) {
	dir := t.TempDir()
	tokPath, err := testfixtures.TokenizerJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	docs, golds := corpus(t, dir, tok)
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 64, 16
	a := args{corpus: docs, gold: golds, tokenizer: tokPath, out: filepath.Join(dir, "w.bin"), family: "bert", settings: s}
	n, positive, err := writeWindows(a)
	if err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, a.out)
	if len(recs) != n || n < 10 || positive < 6 {
		t.Fatalf("%d windows read, %d written, %d with the answer: want the same, and several of each", len(recs), n, positive)
	}

	// The old format, written from the same windows.
	var old bytes.Buffer
	ow := bufio.NewWriter(&old)
	texts, err := readContexts(docs)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := readGold(golds)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		ls, err := label(tok.Encode(g.Question), tok.Encode(texts[g.ID]), g, tok.Template(), s)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			oldWindow(ow, l)
		}
	}
	if err := ow.Flush(); err != nil {
		t.Fatal(err)
	}
	var fromNew bytes.Buffer
	for i, r := range recs {
		for _, v := range []any{[]int32{r.n, r.qlen, r.start, r.end}, r.ids} {
			if err := binary.Write(&fromNew, binary.LittleEndian, v); err != nil {
				t.Fatal(err)
			}
		}
		// What train.py derived from the question length.
		q := r.qlen
		if r.ids[0] != 101 || r.ids[q+1] != 102 || r.ids[r.n-1] != 102 || r.qstart != 1 || r.cstart != q+2 || r.cend != r.n-1 {
			t.Fatalf("window %d: %+v is not [CLS] question [SEP] context [SEP]", i, r)
		}
		for p, typ := range r.types {
			want := int32(0)
			if p >= int(q)+2 {
				want = 1
			}
			if typ != want {
				t.Fatalf("window %d: type ids %v, want 0 up to the context, then 1", i, r.types)
			}
		}
		if slices.Contains(r.ids[1:], 101) {
			t.Fatalf("window %d holds [CLS] past position 0: the allowed positions would change", i)
		}
	}
	if !bytes.Equal(fromNew.Bytes(), old.Bytes()) {
		t.Fatalf("the new file's ids, question lengths and labels (%d bytes) differ from the old format's (%d bytes)", fromNew.Len(), old.Len())
	}

	var lay layout
	raw, err := os.ReadFile(a.out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &lay); err != nil {
		t.Fatal(err)
	}
	if lay.VocabSize != 30522 || lay.UNK != 100 || lay.CLS != 101 || lay.PAD != 0 || !slices.Equal(lay.Specials, []int32{101, 102}) ||
		!lay.TokenTypes || lay.QuestionWords["2040"] != "who" || lay.QuestionWords["2073"] != "where" {
		t.Fatalf("layout %s: want BERT's ids (UNK 100, CLS 101, PAD 0, specials 101 102), token types, who=2040, where=2073", raw)
	}
}

// TestWindowsFamily: with RoBERTa's byte-level BPE tokenizer the windows
// are <s> question </s></s> context </s>, the layout gives its ids and says
// the model takes no token types; gold tokens of another tokenizer are
// refused.
func TestWindowsFamily(t *testing.T) {
	toks, err := testenv.TokenizersDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokPath := filepath.Join(toks, "roberta", "tokenizer.json")
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	docs, golds := corpus(t, dir, tok)
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 64, 16
	a := args{corpus: docs, gold: golds, tokenizer: tokPath, out: filepath.Join(dir, "w.bin"), family: "roberta", settings: s}
	if _, _, err := writeWindows(a); err != nil {
		t.Fatal(err)
	}
	positive := 0
	for i, r := range readRecords(t, a.out) {
		q := r.qlen
		if r.ids[0] != 0 || r.qstart != 1 || r.ids[q+1] != 2 || r.ids[q+2] != 2 || r.cstart != q+3 || r.cend != r.n-1 || r.ids[r.n-1] != 2 {
			t.Fatalf("window %d: %+v is not <s> question </s></s> context </s>", i, r)
		}
		if r.start > 0 {
			positive++
			if r.start < r.cstart || r.end >= r.cend || r.end < r.start {
				t.Fatalf("window %d: answer [%d,%d] outside the context [%d,%d)", i, r.start, r.end, r.cstart, r.cend)
			}
		}
	}
	if positive == 0 {
		t.Fatal("no window holds an answer")
	}
	var lay layout
	raw, _ := os.ReadFile(a.out + ".json")
	if err := json.Unmarshal(raw, &lay); err != nil {
		t.Fatal(err)
	}
	if lay.VocabSize != tok.VocabSize() || lay.UNK != 3 || lay.CLS != 0 || lay.PAD != 1 || !slices.Equal(lay.Specials, []int32{0, 2}) || lay.TokenTypes {
		t.Fatalf("layout %s: want RoBERTa's ids (UNK 3, CLS 0, PAD 1, specials 0 2), no token types", raw)
	}

	bertTok, err := testfixtures.TokenizerJSON(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a.tokenizer = bertTok
	if _, _, err := writeWindows(a); err == nil || !strings.Contains(err.Error(), "another tokenizer") {
		t.Fatalf("RoBERTa's gold tokens with BERT's tokenizer: %v, want a refusal", err)
	}
}

// TestWindowsFolder: -tokenizer may be a model folder without
// tokenizer.json (here bert-base-uncased's vocab.txt and a
// tokenizer_config.json, which modeldir converts as transformers does); the
// windows and the layout are those the same tokenizer's tokenizer.json
// gives, the unknown token found in the vocabulary.
func TestWindowsFolder(t *testing.T) {
	dir := t.TempDir()
	tokPath, err := testfixtures.TokenizerJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "slow")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	var vocab strings.Builder
	for id := range int32(tok.VocabSize()) {
		vocab.WriteString(tok.Token(id) + "\n")
	}
	if err := os.WriteFile(filepath.Join(folder, "vocab.txt"), []byte(vocab.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"tokenizer_class": "BertTokenizer", "do_lower_case": true}`
	if err := os.WriteFile(filepath.Join(folder, "tokenizer_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, golds := corpus(t, dir, tok)
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 64, 16
	out := map[string][]byte{}
	for name, path := range map[string]string{"file": tokPath, "folder": folder} {
		a := args{corpus: docs, gold: golds, tokenizer: path, out: filepath.Join(dir, name+".bin"), family: "bert", settings: s}
		if _, _, err := writeWindows(a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ext := range []string{"", ".json"} {
			b, err := os.ReadFile(a.out + ext)
			if err != nil {
				t.Fatal(err)
			}
			out[name+ext] = b
		}
	}
	if len(readRecords(t, filepath.Join(dir, "folder.bin"))) < 10 {
		t.Fatal("few windows from the folder")
	}
	if !bytes.Equal(out["file"], out["folder"]) || !bytes.Equal(out["file.json"], out["folder.json"]) {
		t.Fatalf("the folder's windows or layout differ from tokenizer.json's:\n%s\n%s", out["file.json"], out["folder.json"])
	}
}
