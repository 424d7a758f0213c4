package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"qa-shard/qa"
)

func TestSpecialIDsAndVocab(t *testing.T) {
	tk := bertTokenizer(t)
	if tpl, pad := tk.Template(), tk.PadID(); !tpl.HasCLS || tpl.CLS != 101 || fmt.Sprint(tpl.Before, tpl.Between, tpl.After) != "[101] [102] [102]" || pad != 0 {
		t.Errorf("template %+v, pad %d, want [CLS]=101 A [SEP]=102 B [SEP], pad 0", tpl, pad)
	}
	if n := tk.VocabSize(); n != 30522 {
		t.Errorf("VocabSize = %d", n)
	}
	if n := tk.MaxInputCharsPerWord(); n != 100 {
		t.Errorf("MaxInputCharsPerWord = %d", n)
	}
}

func TestInvalidUTF8(t *testing.T) {
	tk := bertTokenizer(t)
	// Each invalid byte is one code point reading U+FFFD, which clean_text
	// drops without splitting the word around it.
	text := "ab\xffcd \xe2\x82 the\xc0"
	got := tk.Encode(text)
	want := tk.Encode("abcd the")
	if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.Words, want.Words) {
		t.Fatalf("ids %v words %v, want %v %v", got.IDs, got.Words, want.IDs, want.Words)
	}
	// "ab?cd " is 6 code points, the two bytes of a cut "€" are 2 more.
	if last := got.Offsets[got.Len()-1]; last != (qa.Span{Start: 9, End: 12}) {
		t.Errorf("offset of %q = %v, want [9,12)", "the", last)
	}
	if first := got.Offsets[0]; first.Start != 0 {
		t.Errorf("first offset %v", first)
	}
}

func TestEmptyAndBlank(t *testing.T) {
	tk := bertTokenizer(t)
	for _, s := range []string{"", " ", "\t\r\n", "\x00\u200b\ufeff", "\u3000\u00a0"} {
		if got := tk.Encode(s); got.Len() != 0 || len(got.Offsets) != 0 || len(got.Words) != 0 {
			t.Errorf("%q gave %+v", s, got)
		}
	}
}

// TestConcurrentEncode: run with -race; results must not depend on other
// goroutines sharing the tokenizer and its pooled buffers.
func TestConcurrentEncode(t *testing.T) {
	tk := bertTokenizer(t)
	var texts []string
	for _, p := range loadGolden(t) {
		texts = append(texts, p.Question, p.Context)
	}
	want := make([][]int32, len(texts))
	for i, s := range texts {
		want[i] = tk.Encode(s).IDs
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 16 {
		wg.Go(func() {
			for round := range 20 {
				i := (g*7 + round) % len(texts)
				if got := tk.Encode(texts[i]).IDs; !slices.Equal(got, want[i]) {
					errs <- texts[i]
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent result differs for %q", s)
	}
}

// editedTokenizer writes bert-base-uncased's tokenizer.json with edit applied.
func editedTokenizer(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	raw, err := os.ReadFile(bertTokenizerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	if raw, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(map[string]any)
	}{
		{"other model", `model "WordLevel" is not supported`, func(d map[string]any) { d["model"].(map[string]any)["type"] = "WordLevel" }},
		{"other normalizer", `normalizer "Nmt" is not supported`, func(d map[string]any) { d["normalizer"] = map[string]any{"type": "Nmt"} }},
		{"other pre-tokenizer", `pre_tokenizer "CharDelimiterSplit" is not supported`, func(d map[string]any) {
			d["pre_tokenizer"] = map[string]any{"type": "CharDelimiterSplit", "delimiter": " "}
		}},
		{"nested unsupported", `pre_tokenizer "UnicodeScripts" is not supported`, func(d map[string]any) {
			d["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "UnicodeScripts"}}}
		}},
		{"unknown option", `BertNormalizer has the option "nfkc"`, func(d map[string]any) { d["normalizer"].(map[string]any)["nfkc"] = true }},
		{"unk missing", `unk_token "<unk>" is not in the vocab`, func(d map[string]any) { d["model"].(map[string]any)["unk_token"] = "<unk>" }},
		{"odd pair template", `pair template`, func(d map[string]any) {
			pp := d["post_processor"].(map[string]any)
			pp["pair"] = pp["single"]
		}},
		{"context first", `sequence $B where $A was expected`, func(d map[string]any) {
			pp := d["post_processor"].(map[string]any)
			p := pp["pair"].([]any)
			p[1], p[3] = p[3], p[1]
		}},
		{"special token outside the vocabulary", `special token id 40000 is neither`, func(d map[string]any) {
			d["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 102}, "cls": []any{"[CLS]", 40000}}
		}},
		{"left padding", `puts the context before the question`, func(d map[string]any) {
			d["padding"] = map[string]any{"direction": "Left", "pad_id": 0}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(editedTokenizer(t, c.edit))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "tokenizer.json") {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestLoadBertProcessingAndPadding(t *testing.T) {
	path := editedTokenizer(t, func(d map[string]any) {
		d["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 102}, "cls": []any{"[CLS]", 101}}
		d["padding"] = map[string]any{"pad_id": 7}
	})
	tk, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tpl, pad := tk.Template(), tk.PadID(); tpl.CLS != 101 || fmt.Sprint(tpl.Before, tpl.Between, tpl.After, tpl.AfterTypes) != "[101] [102] [102] [1]" || pad != 7 {
		t.Errorf("template %+v, pad %d, want BERT's with pad 7", tpl, pad)
	}
}

// TestCasedNormalizer: with lowercase false (a cased BERT) and
// strip_accents null, nothing is lowercased and accents stay.
func TestCasedNormalizer(t *testing.T) {
	path := editedTokenizer(t, func(d map[string]any) { d["normalizer"].(map[string]any)["lowercase"] = false })
	tk, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	tk.fast.Encode("Café İstanbul", &words)
	if !slices.Equal(words, []string{"Café", "İstanbul"}) {
		t.Errorf("words = %q", words)
	}
}

// TestAddedTokenInVocabKeepsVocabID: an added token whose content the
// WordPiece vocab holds gets the vocab's id, as tokenizers'
// AddedVocabulary assigns it, not the id written beside it.
func TestAddedTokenInVocabKeepsVocabID(t *testing.T) {
	path := editedTokenizer(t, func(d map[string]any) {
		d["added_tokens"] = append(d["added_tokens"].([]any), map[string]any{
			"id": 30600, "content": "hello", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false,
		})
	})
	tk, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := bertTokenizer(t).Encode("hello").IDs
	if got := tk.Encode("say hello").IDs; len(got) != 2 || got[1] != want[0] {
		t.Fatalf("ids %v, want the vocab's id %v for hello", got, want)
	}
}

// TestNormalizedAddedTokenMatchesNormalizedText: a normalized added token
// is looked for as the normalizer writes it, as tokenizers'
// refresh_added_tokens normalizes each pattern: under BERT's lowercasing
// "[LOC]" is found in "see [LOC] x" and "see [loc] x" alike, one token,
// its offsets the text's; written raw (normalized false) it matches only
// as written.
func TestNormalizedAddedTokenMatchesNormalizedText(t *testing.T) {
	load := func(normalized bool) *Tokenizer {
		path := editedTokenizer(t, func(d map[string]any) {
			d["added_tokens"] = append(d["added_tokens"].([]any), map[string]any{
				"id": 30522, "content": "[LOC]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": normalized, "special": false,
			})
		})
		tk, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	norm, raw := load(true), load(false)
	for _, s := range []string{"see [LOC] x", "see [loc] x"} {
		enc := norm.Encode(s)
		if enc.Len() != 3 || enc.IDs[1] != 30522 || enc.Offsets[1].Start != 4 || enc.Offsets[1].End != 9 {
			t.Errorf("normalized: %q gives %v %v, want the added token at [4, 9)", s, enc.IDs, enc.Offsets)
		}
	}
	if ids := raw.Encode("see [LOC] x").IDs; len(ids) != 3 || ids[1] != 30522 {
		t.Errorf("raw: %v, want the added token", ids)
	}
	if ids := raw.Encode("see [loc] x").IDs; slices.Contains(ids, 30522) {
		t.Errorf("raw: %v: a raw token matched another case", ids)
	}
}
