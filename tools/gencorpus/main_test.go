package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testfixtures"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/mecab/mecabtest"
	"qa-shard/tokenizer/modeldir"
)

// TestCorpusUnchanged pins the corpus of a seed: gold answers were added
// without changing a single random draw, so the demo, benchmark and Slurm
// corpora are those of the first version of this generator. The Japanese
// corpus is pinned too: internal/testing/testmodel/demo-ja was trained on it.
func TestCorpusUnchanged(t *testing.T) {
	for lang, want := range map[string]string{
		"en": "494416b7e53be8a962ef0a4c8d8174cc4ec15969b2e20afca5d06d7ac1384c2e",
		"ja": "b7887e1794ae4ea26a59348cb7a1653df384ae5164bf45d5d50678b3227aa789",
	} {
		out := filepath.Join(t.TempDir(), "docs.jsonl")
		if err := write(options{n: 40, minWords: 20, maxWords: 3000, seed: 3, lengths: "skewed", lang: lang, out: out}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
			t.Errorf("%s corpus sha256 %s, want %s", lang, got, want)
		}
	}
}

// TestGoldAnswers checks every gold answer against its document: the text
// at its code-point offsets, and the token that starts there.
func TestGoldAnswers(t *testing.T) {
	dir := t.TempDir()
	tokPath, err := testfixtures.TokenizerJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := options{n: 30, minWords: 20, maxWords: 2500, seed: 9, lengths: "uniform", out: filepath.Join(dir, "docs.jsonl"),
		gold: filepath.Join(dir, "gold.jsonl"), tokenizer: tokPath, qout: filepath.Join(dir, "q.txt"), lang: "en", questions: allQuestions}
	if err := write(o); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, line := range lines(t, o.out) {
		var d struct{ ID, Context string }
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		docs[d.ID] = d.Context
	}
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	perDoc := map[string]int{}
	deep := 0
	for _, line := range lines(t, o.gold) {
		var g goldRecord
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		runes := []rune(docs[g.ID])
		if g.End > len(runes) || string(runes[g.Start:g.End]) != g.Answer {
			t.Fatalf("%s %s: %q is not at [%d,%d)", g.ID, g.Kind, g.Answer, g.Start, g.End)
		}
		toks := tok.Encode(docs[g.ID])
		if int(toks.Offsets[g.Token].Start) != g.Start {
			t.Fatalf("%s %s: token %d starts at %d, the answer at %d", g.ID, g.Kind, g.Token, toks.Offsets[g.Token].Start, g.Start)
		}
		perDoc[g.ID]++
		if g.Token >= 512 {
			deep++
		}
	}
	if len(perDoc) < 25 || deep == 0 {
		t.Fatalf("gold answers for %d of 30 documents, %d beyond token 512", len(perDoc), deep)
	}
	for id, n := range perDoc {
		if n != len(allQuestions) && len([]rune(docs[id])) > 400 {
			t.Errorf("%s: %d gold answers, want %d", id, n, len(allQuestions))
		}
	}
	q, err := os.ReadFile(o.qout)
	if err != nil || len(q) == 0 {
		t.Fatalf("questions file: %v", err)
	}
}

func TestSelectQuestions(t *testing.T) {
	qs, err := selectQuestions("hq,founder", "en")
	if err != nil || len(qs) != 2 || qs[0].kind != "hq" || qs[1].kind != "founder" {
		t.Fatalf("got %v, %v", qs, err)
	}
	if _, err := selectQuestions("founder,ceo", "en"); err == nil {
		t.Fatal("unknown kind accepted")
	}
	if qs, err := selectQuestions("employees", "ja"); err != nil || len(qs) != 1 || qs[0].text != "従業員は何人ですか？" {
		t.Fatalf("ja: got %v, %v", qs, err)
	}
	if _, err := selectQuestions("all", "fr"); err == nil {
		t.Fatal("unknown language accepted")
	}
}

func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// TestJapaneseDocuments checks the Japanese profiles without a tokenizer:
// every fact is at its code-point offsets, each kind once per document
// long enough for all three fact sentences, no spaces, and the same seed
// gives the same corpus.
func TestJapaneseDocuments(t *testing.T) {
	dir := t.TempDir()
	o := options{n: 40, minWords: 20, maxWords: 3000, seed: 4, lengths: "uniform", lang: "ja", out: filepath.Join(dir, "a.jsonl")}
	if err := write(o); err != nil {
		t.Fatal(err)
	}
	o.out = filepath.Join(dir, "b.jsonl")
	if err := write(o); err != nil {
		t.Fatal(err)
	}
	a, errA := os.ReadFile(filepath.Join(dir, "a.jsonl"))
	b, errB := os.ReadFile(o.out)
	if errA != nil || errB != nil || string(a) != string(b) {
		t.Fatalf("two runs of one seed differ (%v, %v)", errA, errB)
	}
	r := rand.New(rand.NewPCG(4, 5))
	long := 0
	for i := range 40 {
		text, facts := documentJa(r, 20+i*80)
		if strings.ContainsAny(text, " \n") {
			t.Fatalf("document %d has a space or a newline", i)
		}
		runes := []rune(text)
		kinds := map[string]int{}
		for _, f := range facts {
			end := f.start + utf8.RuneCountInString(f.answer)
			if end > len(runes) || string(runes[f.start:end]) != f.answer {
				t.Fatalf("document %d: %s answer %q not at [%d,%d)", i, f.kind, f.answer, f.start, end)
			}
			kinds[f.kind]++
		}
		if len(runes) > 400 {
			long++
			if len(kinds) != len(jaQuestions) {
				t.Errorf("document %d (%d characters): facts %v, want each of the %d kinds once", i, len(runes), kinds, len(jaQuestions))
			}
		}
		for k, n := range kinds {
			if n != 1 {
				t.Errorf("document %d: %d %s facts", i, n, k)
			}
		}
	}
	if long < 30 {
		t.Fatalf("only %d of 40 documents over 400 characters", long)
	}
}

// TestGoldAnswersJapanese: with the Japanese demo model's tokenizer
// folder (bert-base-japanese-v3's vocab.txt, MeCab with ipadic; read with
// modeldir.Open, as qa-shard reads it) every gold answer of -lang ja is at
// its code-point offsets and starts and ends a token, and many lie beyond
// token 512.
func TestGoldAnswersJapanese(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	realDir, err := testenv.RealTokenizer("bert-base-japanese-v3")
	testenv.Need(t, err)
	mecabtest.Require(t, "ipadic-utf8")
	dir := t.TempDir()
	tokDir := filepath.Join(dir, "tok")
	if err := os.Mkdir(tokDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for src, name := range map[string]string{
		filepath.Join(realDir, "vocab.txt"): "vocab.txt",
		filepath.Join(root, "internal", "testing", "testmodel", "demo-ja", "tokenizer_config.json"): "tokenizer_config.json",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tokDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := options{n: 30, minWords: 20, maxWords: 2500, seed: 9, lengths: "uniform", lang: "ja", out: filepath.Join(dir, "docs.jsonl"),
		gold: filepath.Join(dir, "gold.jsonl"), tokenizer: tokDir, qout: filepath.Join(dir, "q.txt"), questions: jaQuestions}
	if err := write(o); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, line := range lines(t, o.out) {
		var d struct{ ID, Context string }
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		docs[d.ID] = d.Context
	}
	tok, _, err := modeldir.Open(tokDir)
	if err != nil {
		t.Fatal(err)
	}
	n, deep := 0, 0
	for _, line := range lines(t, o.gold) {
		var g goldRecord
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		runes := []rune(docs[g.ID])
		if g.End > len(runes) || string(runes[g.Start:g.End]) != g.Answer {
			t.Fatalf("%s %s: %q is not at [%d,%d)", g.ID, g.Kind, g.Answer, g.Start, g.End)
		}
		offs := tok.Encode(docs[g.ID]).Offsets
		if int(offs[g.Token].Start) != g.Start || !endsToken(offs[g.Token:], g.End) {
			t.Fatalf("%s %s: %q [%d,%d) does not start at token %d %v and end a token", g.ID, g.Kind, g.Answer, g.Start, g.End, g.Token, offs[g.Token])
		}
		n++
		if g.Token >= 512 {
			deep++
		}
	}
	if n < 150 || deep < 30 {
		t.Fatalf("%d gold answers, %d beyond token 512: want most of 180, and many deep", n, deep)
	}
	q, err := os.ReadFile(o.qout)
	if err != nil || !strings.HasPrefix(string(q), jaQuestions[0].text+"\n") {
		t.Fatalf("questions file %q: %v", q, err)
	}
}

// TestEndsToken: an answer must end where a token ends.
func TestEndsToken(t *testing.T) {
	offs := []qa.Span{{Start: 3, End: 5}, {Start: 5, End: 8}, {Start: 9, End: 12}}
	for end, want := range map[int]bool{5: true, 8: true, 12: true, 7: false, 9: false, 10: false} {
		if got := endsToken(offs, end); got != want {
			t.Errorf("end %d: %v, want %v", end, got, want)
		}
	}
}
