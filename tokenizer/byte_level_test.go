package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/pretokenizers"
)

// byteVocabModel is a BPE model whose vocab is the 256 byte chars (the id
// of each is its byte) and no merges: every byte is a token, so the word
// ids and offsets show the ByteLevel pre-tokenizer alone.
func byteVocabModel(merges ...string) string {
	vocab := map[string]int{}
	for b, c := range pretokenizers.Alphabet() {
		vocab[c] = b
	}
	for _, m := range merges {
		vocab[strings.ReplaceAll(m, " ", "")] = len(vocab)
	}
	raw, _ := json.Marshal(map[string]any{"type": "BPE", "vocab": vocab, "merges": append([]string{}, merges...)})
	return string(raw)
}

// FuzzByteLevelBPE checks, for any input including invalid UTF-8 (each
// invalid byte is a char of its own), that byte-level BPE does not panic
// and keeps the invariants FuzzEncode checks for BERT.
func FuzzByteLevelBPE(f *testing.F) {
	tk := tinyTokenizer(f, byteVocabModel("Ġ t", "h e", "Ġt he", "' s"), plain)
	for _, s := range []string{"", "the cat's hat", "  x \t\n ", "\xff\xfe\xe2\x82 bad", "日本 😀 ½ ٣ \u00a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := tk.Encode(text)
		chars := int32(utf8.RuneCountInString(text))
		if len(got.Offsets) != got.Len() || len(got.Words) != got.Len() {
			t.Fatalf("%d ids, %d offsets, %d words", got.Len(), len(got.Offsets), len(got.Words))
		}
		for i, o := range got.Offsets {
			if o.Start < 0 || o.Start > o.End || o.End > chars || got.IDs[i] < 0 || int(got.IDs[i]) >= tk.VocabSize() {
				t.Fatalf("token %d: id %d offsets %v (%d chars)", i, got.IDs[i], o, chars)
			}
			if i > 0 && (o.Start < got.Offsets[i-1].Start || got.Words[i] < got.Words[i-1]) {
				t.Fatalf("token %d: %v word %d after %v word %d", i, o, got.Words[i], got.Offsets[i-1], got.Words[i-1])
			}
		}
	})
}

const (
	plain      = `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}`
	prefix     = `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`
	noRegex    = `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":false}`
	regexUnset = `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false}`
)

// TestByteLevel: the word ids and offsets are what npm tokenizers@0.23.2
// gives for the same tokenizer.json: the contractions, the whitespace runs
// that leave their last char to the next word, Unicode spaces, digits,
// letters and the rest, add_prefix_space and use_regex.
func TestByteLevel(t *testing.T) {
	model := byteVocabModel()
	for _, c := range []struct {
		pre, text string
		words     []int32
		offsets   string
	}{
		{plain, "Hello world's it's I'm we'll they've you're he'd 'S 'x",
			[]int32{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 17, 17, 18},
			"0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16 16-17 17-18 18-19 19-20 20-21 21-22 22-23 23-24 24-25 25-26 26-27 27-28 28-29 29-30 30-31 31-32 32-33 33-34 34-35 35-36 36-37 37-38 38-39 39-40 40-41 41-42 42-43 43-44 44-45 45-46 46-47 47-48 48-49 49-50 50-51 51-52 52-53 53-54"},
		{plain, "  two  spaces   three\t\ttabs \n\n end  ",
			[]int32{0, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6, 7, 8, 8, 8, 8, 9, 9, 9, 10, 10, 10, 10, 11, 11},
			"0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16 16-17 17-18 18-19 19-20 20-21 21-22 22-23 23-24 24-25 25-26 26-27 27-28 28-29 29-30 30-31 31-32 32-33 33-34 34-35 35-36"},
		{plain, "a b　c  d",
			[]int32{0, 1, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6, 7},
			"0-1 1-2 1-2 2-3 3-4 3-4 3-4 4-5 5-6 6-7 6-7 6-7 7-8"},
		{plain, "don't!!  ...x 12 345 a1b2 ½ ٣",
			[]int32{0, 0, 0, 1, 1, 2, 2, 3, 4, 4, 4, 4, 5, 6, 6, 6, 7, 7, 7, 7, 8, 8, 9, 10, 11, 12, 12, 12, 13, 13, 13},
			"0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16 16-17 17-18 18-19 19-20 20-21 21-22 22-23 23-24 24-25 25-26 26-27 26-27 27-28 28-29 28-29"},
		{plain, "x 's ' s''s",
			[]int32{0, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6},
			"0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11"},
		{plain, "   ",
			[]int32{0, 0, 0},
			"0-1 1-2 2-3"},
		{plain, "é ü ñ 日本語 😀 x",
			[]int32{0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5},
			"0-1 0-1 1-2 2-3 2-3 3-4 4-5 4-5 5-6 6-7 6-7 6-7 7-8 7-8 7-8 8-9 8-9 8-9 9-10 10-11 10-11 10-11 10-11 11-12 12-13"},
		{prefix, "Hello world",
			[]int32{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
			"0-1 0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11"},
		{prefix, " Hello",
			[]int32{0, 0, 0, 0, 0, 0},
			"0-1 1-2 2-3 3-4 4-5 5-6"},
		{prefix, "é",
			[]int32{0, 0, 0},
			"0-1 0-1 0-1"},
		{prefix, "日本",
			[]int32{0, 0, 0, 0, 0, 0, 0},
			"0-1 0-1 0-1 0-1 1-2 1-2 1-2"},
		{noRegex, "Hello world's  x",
			[]int32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			"0-1 0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16"},
		{noRegex, "é",
			[]int32{0, 0, 0},
			"0-1 0-1 0-1"},
		{regexUnset, "a b",
			[]int32{0, 1, 1},
			"0-1 1-2 2-3"},
	} {
		tk := tinyTokenizer(t, model, c.pre)
		got := tk.Encode(c.text)
		text := c.text
		if c.pre == prefix || c.pre == noRegex {
			if !strings.HasPrefix(text, " ") {
				text = " " + text
			}
		}
		var ids []int32
		for _, b := range []byte(text) {
			ids = append(ids, int32(b))
		}
		var offs []string
		for _, o := range got.Offsets {
			offs = append(offs, fmt.Sprintf("%d-%d", o.Start, o.End))
		}
		if !slices.Equal(got.IDs, ids) || !slices.Equal(got.Words, c.words) || strings.Join(offs, " ") != c.offsets {
			t.Errorf("%q:\n got %v %v %s\nwant %v %v %s", c.text, got.IDs, got.Words, strings.Join(offs, " "), ids, c.words, c.offsets)
		}
	}
}

func TestByteLevelOptions(t *testing.T) {
	model := byteVocabModel()
	for _, pre := range []string{
		`{"type":"ByteLevel","trim_offsets":false}`, // tokenizers: missing field add_prefix_space
		`{"type":"ByteLevel","add_prefix_space":false}`,
	} {
		if _, err := parse([]byte(tinyJSON(model, pre))); err == nil {
			t.Errorf("%s: no error", pre)
		}
	}
	pre := `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"regex":"x"}`
	if _, err := parse([]byte(tinyJSON(model, pre))); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown option: %v, want ErrUnsupported", err)
	}
}

// BenchmarkEncodeRoberta reports tokens per second of the roberta family
// (byte-level BPE) on English prose: english.txt (3 KB) and ten copies
// of it with the contexts of pairs.json (58 KB, a long and more varied document);
// run it with -cpu 1 for the one-core figure.
func BenchmarkEncodeRoberta(b *testing.B) {
	tk := familyTokenizer(b, "roberta")
	raw, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := os.ReadFile("testdata/pairs.json")
	if err != nil {
		b.Fatal(err)
	}
	var ps []struct{ Context string }
	if err := json.Unmarshal(pairs, &ps); err != nil {
		b.Fatal(err)
	}
	var long strings.Builder
	for range 10 {
		long.Write(raw)
		for _, p := range ps {
			long.WriteString(p.Context + "\n")
		}
	}
	for _, c := range []struct{ name, text string }{{"english", string(raw)}, {"long", long.String()}} {
		b.Run(c.name, func(b *testing.B) {
			tokens := tk.Encode(c.text).Len()
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tk.Encode(c.text)
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
