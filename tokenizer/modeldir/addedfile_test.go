package modeldir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/tokenizer"
)

// withoutKeys is a JSON object file's content with keys removed.
func withoutKeys(t *testing.T, path string, keys ...string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		delete(m, k)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// realWithAddedFlags is the real folder's tokenizer.json with the added
// tokens not in the vocabulary given the flags transformers gives the
// tokens of added_tokens.json (lstrip and rstrip false; normalized and
// special as special says), loaded with the folder's side files.
func realWithAddedFlags(t *testing.T, real string, special bool) *tokenizer.Tokenizer {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(real, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tj map[string]any
	if err := json.Unmarshal(raw, &tj); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, a := range tj["added_tokens"].([]any) {
		m := a.(map[string]any)
		if m["id"].(float64) < 30522 {
			continue
		}
		m["lstrip"], m["rstrip"], m["normalized"], m["special"] = false, false, !special, special
		changed++
	}
	if changed != 4 {
		t.Fatalf("%d added tokens past the vocabulary in the real tokenizer.json, want 4", changed)
	}
	raw, err = json.Marshal(tj)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.FromJSON(raw, real, "the real tokenizer.json, added tokens as added_tokens.json gives them")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestAddedTokensFileMatchesRealFile: the real BERT-tiny folder's slow
// files as transformers before 4.34 saved them (tokenizer_config.json
// without added_tokens_decoder, the four added tokens in added_tokens.json
// only) convert into the tokenizer transformers builds from them: the
// ids of the tokenizer.json the folder ships on every golden text and
// sample line, and its offsets too once its added tokens carry the flags
// transformers gives added_tokens.json's tokens (lstrip and rstrip false).
// With the four tokens not named special anywhere they are plain added
// tokens, normalized (matched after lowercasing), still matched whole
// before WordPiece.
func TestAddedTokensFileMatchesRealFile(t *testing.T) {
	golden, sample := sampleTexts(t)
	for _, c := range []struct {
		name    string
		special bool
		drop    []string
	}{
		{"special", true, []string{"added_tokens_decoder"}},
		{"plain", false, []string{"added_tokens_decoder", "additional_special_tokens"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			slow, real := slowCopy(t, "bert-tiny-qa-ner-span-added-tokens", []string{"vocab.txt", "config.json", "added_tokens.json"}, nil)
			for _, f := range []string{"tokenizer_config.json", "special_tokens_map.json"} {
				if err := os.WriteFile(filepath.Join(slow, f), []byte(withoutKeys(t, filepath.Join(real, f), c.drop...)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, origin, err := Open(slow)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(origin.Files, filepath.Join(slow, "added_tokens.json")) || !strings.Contains(origin.String(), "added_tokens.json") {
				t.Fatalf("added_tokens.json is not among the files read: %s", origin)
			}
			for _, s := range []string{"[LOC]", "see [LOC] Paris", "[loc][PER]x"} {
				ids := got.Encode(s).IDs
				if !slices.Contains(ids, 30522) && !slices.Contains(ids, 30525) {
					t.Errorf("%q: ids %v hold no added token: the tokens were not matched whole", s, ids)
				}
			}
			n := sameEncodings(t, got, realWithAddedFlags(t, real, c.special), golden, sample)
			t.Logf("%d texts encode as the real tokenizer.json with added_tokens.json's flags", n)
			if !c.special {
				return
			}
			shipped, _, err := Open(real)
			if err != nil {
				t.Fatal(err)
			}
			for _, set := range [][]string{golden, sample} {
				for _, s := range set {
					if g, w := got.Encode(s).IDs, shipped.Encode(s).IDs; !slices.Equal(g, w) {
						t.Fatalf("%q: ids %v, the shipped tokenizer.json gives %v", s, g, w)
					}
				}
			}
		})
	}
}

// TestAddedTokensFile: added_tokens.json beside a slow tokenizer's
// vocab.txt makes its tokens added tokens, matched whole before WordPiece
// ("Zorbulon" is one token, not z ##or ##bu ##lon); an id the converted
// tokenizer would not give the token (a gap past the vocabulary, an id
// inside it for a new token, one id for two tokens) and a file that is not
// an object of ids are refused naming the file; with added_tokens_decoder
// in tokenizer_config.json the file is not read, as transformers does not
// read it then.
func TestAddedTokensFile(t *testing.T) {
	folder := func(t *testing.T, added, config string) string {
		t.Helper()
		slow, _ := slowCopy(t, "bert-tiny-qa-ner-span-added-tokens", []string{"vocab.txt"}, map[string]string{"tokenizer_config.json": config})
		if added != "" {
			if err := os.WriteFile(filepath.Join(slow, "added_tokens.json"), []byte(added), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return slow
	}
	const bert = `{"tokenizer_class": "BertTokenizer"}`
	text := "Zorbulon founded it."
	plain, _, err := Open(folder(t, "", bert))
	if err != nil {
		t.Fatal(err)
	}
	if n := plain.Encode(text).Len(); n < 5 {
		t.Fatalf("without added_tokens.json %q is %d tokens; the test needs a word WordPiece splits", text, n)
	}
	tk, origin, err := Open(folder(t, `{"zorbulon": 30522}`, bert))
	if err != nil {
		t.Fatal(err)
	}
	enc := tk.Encode(text)
	if enc.IDs[0] != 30522 || enc.Offsets[0].Start != 0 || enc.Offsets[0].End != 8 || enc.Len() != 4 {
		t.Errorf("%q: ids %v offsets %v, want zorbulon whole (30522, [0, 8)), then founded it .", text, enc.IDs, enc.Offsets)
	}
	if tk.VocabSize() != 30523 || !strings.Contains(origin.String(), "added_tokens.json") {
		t.Errorf("vocabulary %d ids (want 30523), origin %s", tk.VocabSize(), origin)
	}

	ignored, origin, err := Open(folder(t, `{"zorbulon": 30522}`, `{"tokenizer_class": "BertTokenizer", "added_tokens_decoder": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ignored.Encode(text).IDs, 30522) || strings.Contains(origin.String(), "added_tokens.json") {
		t.Errorf("added_tokens.json read beside added_tokens_decoder: %v, %s", ignored.Encode(text).IDs, origin)
	}

	for _, c := range []struct {
		name, added string
		want        []string
	}{
		{"a gap past the vocabulary", `{"zorbulon": 30522, "quux": 30524}`, []string{`"quux" the id 30524`, "gives it 30523", "without gaps"}},
		{"an id inside the vocabulary", `{"zorbulon": 7}`, []string{`"zorbulon" the id 7`, "gives it 30522"}},
		{"a vocabulary token on another id", `{"[CLS]": 30522}`, []string{`"[CLS]" the id 30522`, "gives it 101", "its id in the vocabulary"}},
		{"one id twice", `{"zorbulon": 30522, "quux": 30522}`, []string{`"quux" and "zorbulon" the same id 30522`}},
		{"a negative id", `{"zorbulon": -1}`, []string{`"zorbulon" has the id -1`}},
		{"a fraction", `{"zorbulon": 30522.5}`, []string{`"zorbulon" has the id 30522.5`}},
		{"not an object", `["zorbulon"]`, []string{"not an object of tokens and their ids"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Open(folder(t, c.added, bert))
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "added_tokens.json") {
				t.Fatalf("err = %v, want ErrInput naming added_tokens.json", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
		})
	}
}
