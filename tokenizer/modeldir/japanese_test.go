package modeldir

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"qa-shard/internal/testing/testenv"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/mecab"
	"qa-shard/tokenizer/mecab/mecabtest"
)

// The goldens of tools/jagolden/golden.py (make ja-goldens): transformers'
// BertJapaneseTokenizer logic over python3-mecab with the real
// bert-base-japanese-v3 vocabulary, on Japanese man pages, the Japanese
// Debian policy and hostile strings, for each tokenizer_config.json
// variant beside them.
const jaGoldens = "testdata/japanese"

// jaFolder writes a model folder in a temporary directory: the real v3
// vocabulary and the variant's tokenizer_config.json.
func jaFolder(t *testing.T, config []byte) string {
	t.Helper()
	src, err := testenv.RealTokenizer("bert-base-japanese-v3")
	testenv.Need(t, err)
	vocab, err := os.ReadFile(filepath.Join(src, "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"vocab.txt": vocab, "tokenizer_config.json": config} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// systemDictionary is the system folder of a Debian MeCab dictionary
// package (make deps installs them); missing, with libmecab, the test
// skips (fails under CI=true).
func systemDictionary(t *testing.T, name string) string {
	t.Helper()
	mecabtest.Require(t, name)
	return mecab.SystemFolders(name)[0]
}

func readGzipLines(t *testing.T, path string, each func(line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestJapaneseGolden: every variant encodes every text with the golden's
// ids and tokens, and every token's offsets are a range of the text, in
// order.
func TestJapaneseGolden(t *testing.T) {
	var texts []string
	readGzipLines(t, filepath.Join(jaGoldens, "texts.jsonl.gz"), func(line []byte) {
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	})
	if len(texts) < 3000 {
		t.Fatalf("only %d golden texts", len(texts))
	}
	configs, err := filepath.Glob(filepath.Join(jaGoldens, "*.config.json"))
	if err != nil || len(configs) < 7 {
		t.Fatalf("variants %v: %v", configs, err)
	}
	for _, cfgPath := range configs {
		name := strings.TrimSuffix(filepath.Base(cfgPath), ".config.json")
		t.Run(name, func(t *testing.T) {
			cfg, err := os.ReadFile(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			var o Options
			if strings.HasPrefix(name, "ipadic") {
				mecabtest.Require(t, "ipadic-utf8")
			}
			if strings.HasPrefix(name, "unidic") {
				// Debian's UniDic 3.1.1, named by the user in place of
				// pip's unidic (the golden maker used the same folder).
				o.MecabDicdir = systemDictionary(t, "unidic")
			}
			tk, origin, err := OpenWith(jaFolder(t, cfg), o)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(name, "ipadic") || strings.Contains(name, "unidic") {
				if origin.Mecab == nil {
					t.Fatalf("origin %v names no MeCab", origin)
				}
				t.Logf("%s", origin.Mecab)
			}
			i, bad, tokens := 0, 0, 0
			readGzipLines(t, filepath.Join(jaGoldens, name+".jsonl.gz"), func(line []byte) {
				var g struct {
					IDs    []int32  `json:"ids"`
					Tokens []string `json:"tokens"`
				}
				if err := json.Unmarshal(line, &g); err != nil {
					t.Fatal(err)
				}
				if i >= len(texts) {
					t.Fatalf("more goldens than texts")
				}
				text := texts[i]
				i++
				got := tk.Encode(text)
				tokens += got.Len()
				toks := make([]string, got.Len())
				for k, id := range got.IDs {
					toks[k] = tk.Token(id)
				}
				if !slices.Equal(got.IDs, g.IDs) || !slices.Equal(toks, g.Tokens) {
					bad++
					if bad <= 5 {
						t.Errorf("text %d %.120q:\n got %q\nwant %q", i-1, text, toks, g.Tokens)
					}
				}
				if err := checkOffsets(text, got.Offsets); err != nil {
					t.Errorf("text %d %.80q: %v", i-1, text, err)
				}
			})
			if i != len(texts) {
				t.Fatalf("%d goldens for %d texts", i, len(texts))
			}
			t.Logf("%d texts, %d tokens, %d mismatches", i, tokens, bad)
		})
	}
}

// TestJapaneseConcurrentEncode: run with -race; goroutines sharing a
// MeCab tokenizer (its lattices, the encode buffers it lends) get what
// one alone gets, offsets included, on texts NFKC rewrites and texts it
// leaves alone.
func TestJapaneseConcurrentEncode(t *testing.T) {
	var texts []string
	readGzipLines(t, filepath.Join(jaGoldens, "texts.jsonl.gz"), func(line []byte) {
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		if len(texts) < 400 {
			texts = append(texts, s)
		}
	})
	texts = append(texts, "地元の川は新しい設計を改善した（ｶﾞｲﾄﾞﾌﾞｯｸ）。", "本社は１９６５年に神戸へ移転した。")
	cfg, err := os.ReadFile(filepath.Join(jaGoldens, "ipadic-wordpiece.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	mecabtest.Require(t, "ipadic-utf8")
	tk, _, err := OpenWith(jaFolder(t, cfg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]qa.Tokens, len(texts))
	for i, s := range texts {
		want[i] = tk.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range len(texts) {
				i := (g*53 + k) % len(texts)
				got := tk.Encode(texts[i])
				if !slices.Equal(got.IDs, want[i].IDs) || !slices.Equal(got.Offsets, want[i].Offsets) || !slices.Equal(got.Words, want[i].Words) {
					errs <- i
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for i := range errs {
		t.Errorf("concurrent result differs for text %d %.80q", i, texts[i])
	}
}

// checkOffsets says whether offsets are code-point ranges of text that
// never go backwards.
func checkOffsets(text string, offsets []qa.Span) error {
	n := int32(utf8.RuneCountInString(text))
	last := int32(0)
	for k, o := range offsets {
		if o.Start < last || o.End < o.Start || o.End > n {
			return fmt.Errorf("token %d has offsets [%d, %d) after %d in %d chars", k, o.Start, o.End, last, n)
		}
		last = o.Start
	}
	return nil
}

// TestJapaneseRefusals: the folders qa-shard must refuse, each with a
// sentence that says what to do.
func TestJapaneseRefusals(t *testing.T) {
	for _, c := range []struct {
		name, config string
		o            Options
		dic          string // a system dictionary given as --mecab-dicdir
		sentinel     error
		want         []string
	}{
		{"sudachi", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "sudachi"}`, Options{}, "", tokenizer.ErrUnsupported, []string{"sudachi", "SudachiPy", "mecab"}},
		{"jumanpp", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "jumanpp"}`, Options{}, "", tokenizer.ErrUnsupported, []string{"Juman++"}},
		{"sentencepiece", `{"tokenizer_class": "BertJapaneseTokenizer", "subword_tokenizer_type": "sentencepiece"}`, Options{}, "", tokenizer.ErrUnsupported, []string{"sentencepiece", "wordpiece"}},
		{"unknown dictionary name", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab", "mecab_kwargs": {"mecab_dic": "neologd"}}`, Options{}, "", ErrInput, []string{"neologd", "unidic_lite"}},
		{"unknown MeCab option", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab", "mecab_kwargs": {"dic": "ipadic"}}`, Options{}, "", ErrInput, []string{"mecab_kwargs.dic"}},
		{"no libmecab", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab"}`, Options{MecabLib: "libmecab-missing.so.9"}, "", ErrInput, []string{"libmecab-missing.so.9", "apt-get install libmecab2", "--mecab-lib"}},
		{"not a dictionary folder", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab"}`, Options{MecabDicdir: t.TempDir()}, "", ErrInput, []string{"not a MeCab dictionary folder", "IPAdic"}},
		{"UniDic for an IPAdic model", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab", "mecab_kwargs": {"mecab_dic": "ipadic"}}`, Options{}, "unidic", mecab.ErrMismatch, []string{"UniDic 3.1.1", "IPAdic 2.7.0", "pip install ipadic"}},
		{"IPAdic for a UniDic model", `{"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "mecab", "mecab_kwargs": {"mecab_dic": "unidic"}}`, Options{}, "ipadic-utf8", mecab.ErrMismatch, []string{"IPAdic 2.7.0", "UniDic 3.1.0", "pip install unidic"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.dic != "" {
				c.o.MecabDicdir = systemDictionary(t, c.dic)
			}
			_, _, err := OpenWith(jaFolder(t, []byte(c.config)), c.o)
			if err == nil || !errors.Is(err, c.sentinel) {
				t.Fatalf("err = %v, want %v", err, c.sentinel)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// TestJapaneseRealFolderNeedsUnidicLite: the real v3 folder names
// unidic_lite, which only pip packages: where it is not installed (this
// test's premise, checked first) the folder is refused naming it and how
// to install it, never run with another dictionary.
func TestJapaneseRealFolderNeedsUnidicLite(t *testing.T) {
	dir, err := testenv.RealTokenizer("bert-base-japanese-v3")
	testenv.Need(t, err)
	k, _ := mecab.KnownDictionary("unidic_lite")
	if loc, err := mecab.FindDictionary(k, ""); err == nil {
		t.Skipf("unidic_lite is installed here (%s): the refusal cannot be seen", loc.Dir)
	}
	_, _, err = OpenWith(dir, Options{})
	if err == nil || !errors.Is(err, mecab.ErrMissing) || !errors.Is(err, ErrInput) {
		t.Fatalf("err = %v, want a missing dictionary", err)
	}
	for _, w := range []string{"unidic_lite", "pip install unidic-lite", "--mecab-dicdir"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v\nwant it to say %q", err, w)
		}
	}
}
