package modeldir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/tokenizer"
)

// slowCopy copies the named files of a real tokenizer folder
// (../shared/real-tokenizers/name) into a new folder, without
// tokenizer.json, and writes extra files beside them.
func slowCopy(t *testing.T, name string, files []string, extra map[string]string) (slow, real string) {
	t.Helper()
	src, err := testenv.RealTokenizer(name)
	testenv.Need(t, err)
	dst := t.TempDir()
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f, s := range extra {
		if err := os.WriteFile(filepath.Join(dst, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst, src
}

// sampleTexts are the golden pairs' questions and contexts and the
// hostile strings (tokenizer/testdata), then the lines of a few thousand
// lines of Go's own sources and text files: code, comments, several
// scripts.
func sampleTexts(t *testing.T) (golden, sample []string) {
	t.Helper()
	for _, f := range []string{"pairs.json", "hostile.json"} {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		var pairs []struct{ Question, Context string }
		if err := json.Unmarshal(raw, &pairs); err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			golden = append(golden, p.Question, p.Context)
		}
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, pat := range []string{"src/strings/*.go", "src/unicode/utf8/*.go", "src/html/*.go", "src/net/url/*.go", "src/regexp/syntax/*.go", "lib/time/README", "src/bufio/*.go"} {
		files, _ := filepath.Glob(filepath.Join(goroot, pat))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(raw), "\n") {
				if strings.TrimSpace(l) != "" {
					sample = append(sample, l)
				}
			}
		}
	}
	// Literal special and added tokens, each with and without spaces
	// around it (lstrip/rstrip, RoBERTa's " <mask>").
	golden = append(golden, "see [LOC] Paris[ORG]x [MASK] [SEP][CLS] [PER]  y [MISC]", "a <mask> b<mask>c <s></s> <pad><unk>",
		"[UNK] [PAD] <mask>")
	if len(golden) < 150 || len(sample) < 5000 {
		t.Fatalf("%d golden texts and %d sample lines: not the sample the claim rests on", len(golden), len(sample))
	}
	return golden, sample
}

// sameEncodings compares two tokenizers on every text: ids, offsets, word
// ids, first-window offsets; and their pair templates, pad ids and vocab
// sizes. It returns the number of texts compared.
func sameEncodings(t *testing.T, got, want *tokenizer.Tokenizer, texts ...[]string) int {
	t.Helper()
	if g, w := got.Template(), want.Template(); fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", w) {
		t.Errorf("template %+v, want %+v", g, w)
	}
	if got.PadID() != want.PadID() || got.VocabSize() != want.VocabSize() {
		t.Errorf("pad %d vocab %d, want pad %d vocab %d", got.PadID(), got.VocabSize(), want.PadID(), want.VocabSize())
	}
	n, bad := 0, 0
	for _, set := range texts {
		for _, s := range set {
			n++
			g, w := got.Encode(s), want.Encode(s)
			if !slices.Equal(g.IDs, w.IDs) || !slices.Equal(g.Offsets, w.Offsets) || !slices.Equal(g.Words, w.Words) || !slices.Equal(g.FirstOffsets, w.FirstOffsets) {
				if bad++; bad <= 3 {
					t.Errorf("%q:\n got %v %v\nwant %v %v", s, g.IDs, g.Offsets, w.IDs, w.Offsets)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts encode differently", bad, n)
	}
	return n
}

// TestConvertMatchesRealFile: a folder's slow files, converted, encode
// every golden text and every line of the sample exactly as the
// tokenizer.json the same folder ships (written by transformers from those
// files): RoBERTa's vocab.json + merges.txt (deepset's tinyroberta-squad2
// with its configs; Hugging Face's roberta-base with config.json's
// model_type only) and BERT's vocab.txt (a BERT-tiny with four added
// tokens in added_tokens_decoder, lstrip and rstrip set).
func TestConvertMatchesRealFile(t *testing.T) {
	golden, sample := sampleTexts(t)
	for _, c := range []struct {
		name, converter string
		files           []string
		extra           map[string]string
	}{
		{"tinyroberta-squad2", "RobertaConverter", []string{"vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json", "config.json"}, nil},
		{"roberta-base", "RobertaConverter", []string{"vocab.json", "merges.txt", "tokenizer_config.json"}, map[string]string{"config.json": `{"model_type": "roberta"}`}},
		{"bert-tiny-qa-ner-span-added-tokens", "BertConverter", []string{"vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "config.json"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			slow, real := slowCopy(t, c.name, c.files, c.extra)
			got, origin, err := Open(slow)
			if err != nil {
				t.Fatal(err)
			}
			if origin.Converter != c.converter || !origin.Converted() || !strings.Contains(origin.String(), "converted from") {
				t.Fatalf("origin %+v, want a conversion by %s", origin, c.converter)
			}
			want, wantOrigin, err := Open(real)
			if err != nil {
				t.Fatal(err)
			}
			if wantOrigin.Converted() || filepath.Base(wantOrigin.Path()) != "tokenizer.json" {
				t.Fatalf("the real folder was not read from its tokenizer.json: %+v", wantOrigin)
			}
			n := sameEncodings(t, got, want, golden, sample)
			t.Logf("%s: %d texts (%d golden, %d sample lines) encode alike", c.name, n, len(golden), len(sample))
		})
	}
}

// TestConvertOptions: an option of tokenizer_config.json changes the
// conversion as it changes transformers' (do_lower_case false keeps case,
// so the cased texts encode differently from the real uncased file), and
// bad folders are refused with an error naming the file.
func TestConvertOptions(t *testing.T) {
	files := []string{"vocab.txt", "special_tokens_map.json"}
	slow, real := slowCopy(t, "bert-tiny-qa-ner-span-added-tokens", files, map[string]string{"tokenizer_config.json": `{"tokenizer_class": "BertTokenizer", "do_lower_case": false}`})
	cased, _, err := Open(slow)
	if err != nil {
		t.Fatal(err)
	}
	uncased, _, err := Open(real)
	if err != nil {
		t.Fatal(err)
	}
	if s := "Paris"; slices.Equal(cased.Encode(s).IDs, uncased.Encode(s).IDs) {
		t.Errorf("do_lower_case false: %q encodes as the uncased file does", s)
	}

	vocab := "[PAD]\n[UNK]\n[CLS]\nhello\n"
	for _, c := range []struct {
		name     string
		files    map[string]string
		want     []string
		sentinel error
	}{
		{"truncated tokenizer_config.json", map[string]string{"vocab.txt": vocab + "[SEP]\n", "tokenizer_config.json": `{"tokenizer_class": "BertTok`}, []string{"tokenizer_config.json", "not valid JSON"}, ErrInput},
		{"not JSON", map[string]string{"vocab.txt": vocab + "[SEP]\n", "tokenizer_config.json": `tokenizer_class = Bert`}, []string{"tokenizer_config.json", "not valid JSON"}, ErrInput},
		{"vocab.txt without the sep token", map[string]string{"vocab.txt": vocab, "tokenizer_config.json": `{"tokenizer_class": "BertTokenizer"}`}, []string{"vocab.txt", `sep_token "[SEP]"`}, ErrInput},
		{"a named token vocab.txt lacks", map[string]string{"vocab.txt": vocab + "[SEP]\n", "tokenizer_config.json": `{"tokenizer_class": "BertTokenizer", "cls_token": "<cls>"}`}, []string{"vocab.txt", `cls_token "<cls>"`, "tokenizer_config.json"}, ErrInput},
		{"no vocab.txt", map[string]string{"tokenizer_config.json": `{"tokenizer_class": "BertTokenizer"}`}, []string{"vocab.txt"}, ErrInput},
		{"no class", map[string]string{"vocab.txt": vocab + "[SEP]\n"}, []string{"tokenizer_class", "model_type"}, ErrInput},
		{"a class not converted", map[string]string{"vocab.txt": vocab, "tokenizer_config.json": `{"tokenizer_class": "MarianTokenizer"}`}, []string{"MarianTokenizer", "not one qa-shard converts"}, tokenizer.ErrUnsupported},
		{"bad merges.txt", map[string]string{"vocab.json": `{"<s>": 0, "</s>": 1, "a": 2}`, "merges.txt": "#version: 0.2\na b c\n", "config.json": `{"model_type": "roberta"}`}, []string{"merges.txt", "line 2"}, ErrInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, s := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := Open(dir)
			if err == nil || !errors.Is(err, c.sentinel) {
				t.Fatalf("err = %v, want %v", err, c.sentinel)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
		})
	}
}
