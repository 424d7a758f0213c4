package tokenizer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tinyJSON is a tokenizer.json with only a model and a pre-tokenizer.
func tinyJSON(model, pre string) string {
	return `{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,` +
		`"pre_tokenizer":` + pre + `,"post_processor":null,"decoder":null,"model":` + model + `}`
}

func tinyTokenizer(t testing.TB, model, pre string) *Tokenizer {
	t.Helper()
	tk, err := parse([]byte(tinyJSON(model, pre)))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// offsetString writes offsets as "start-end start-end ...".
func offsetString(tk *Tokenizer, text string) ([]int32, string) {
	e := tk.Encode(text)
	var offs []string
	for _, o := range e.Offsets {
		offs = append(offs, fmt.Sprintf("%d-%d", o.Start, o.End))
	}
	return e.IDs, strings.Join(offs, " ")
}

// The models of TestBPE, each word the whole text (no pre-tokenizer).
var bpeModels = map[string]string{
	"ties":                 `{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"aa":3,"ab":4,"bc":5,"abc":6,"aaa":7},"merges":[["a","a"],["b","c"],["a","b"],["a","bc"],["aa","a"]]}`,
	"legacy":               `{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"aa":3,"ab":4,"bc":5,"abc":6,"aaa":7},"merges":["#version: 0.2","a a","b c","a b","a bc","aa a"]}`,
	"dup-merge":            `{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"ab":3,"bc":4},"merges":[["a","b"],["b","c"],["a","b"]]}`,
	"unk":                  `{"type":"BPE","vocab":{"<unk>":0,"a":1,"b":2,"ab":3},"merges":[["a","b"]],"unk_token":"<unk>"}`,
	"unk-fused":            `{"type":"BPE","vocab":{"<unk>":0,"a":1,"b":2,"ab":3},"merges":[["a","b"]],"unk_token":"<unk>","fuse_unk":true}`,
	"no-unk":               `{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}`,
	"byte-fallback":        `{"type":"BPE","vocab":{"<unk>":0,"a":1,"b":2,"ab":3,"<0xC3>":4,"<0xA9>":5,"<0x78>":6},"merges":[["a","b"]],"unk_token":"<unk>","byte_fallback":true}`,
	"byte-fallback-no-unk": `{"type":"BPE","vocab":{"a":1,"b":2,"ab":3,"<0xC3>":4,"<0xA9>":5},"merges":[["a","b"]],"byte_fallback":true}`,
	"ignore-merges":        `{"type":"BPE","vocab":{"h":0,"e":1,"l":2,"o":3,"he":4,"ll":5,"hello":6,"hell":7},"merges":[["h","e"],["l","l"]],"ignore_merges":true}`,
	"no-ignore-merges":     `{"type":"BPE","vocab":{"h":0,"e":1,"l":2,"o":3,"he":4,"ll":5,"hello":6,"hell":7},"merges":[["h","e"],["l","l"]]}`,
	"affixes":              `{"type":"BPE","vocab":{"<unk>":0,"a":1,"##b":2,"##c</w>":3,"c</w>":4,"ab":5,"abc</w>":6,"a</w>":8,"##a":9},"merges":[["a","##b"],["ab","##c</w>"]],"continuing_subword_prefix":"##","end_of_word_suffix":"</w>","unk_token":"<unk>"}`,
	"dropout-0":            `{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]],"dropout":0.0,"ignore_merges":true}`,
	"dropout-1":            `{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]],"dropout":1.0,"ignore_merges":true}`,
}

// TestBPE: every expected encoding is what npm tokenizers@0.23.2 gives for
// the same tokenizer.json: merges by rank, ties by position ("aaaaa" is
// aa+aaa), a merge listed twice keeps its last rank, the "left right" form,
// unk and fuse_unk, unknown chars dropped without unk (the offsets after
// them shift back, as in HF), byte_fallback (its byte tokens go before a
// pending unk), ignore_merges, the prefix and suffix, dropout 0 and 1.
func TestBPE(t *testing.T) {
	for _, c := range []struct {
		model, text string
		ids         []int32
		offsets     string
	}{
		{"ties", "aaaa", []int32{3, 3}, "0-2 2-4"},
		{"ties", "aaa", []int32{7}, "0-3"},
		{"ties", "aaaaa", []int32{3, 7}, "0-2 2-5"},
		{"ties", "abc", []int32{6}, "0-3"},
		{"ties", "abcabc", []int32{6, 6}, "0-3 3-6"},
		{"ties", "aabc", []int32{3, 5}, "0-2 2-4"},
		{"legacy", "aaaa", []int32{3, 3}, "0-2 2-4"},
		{"legacy", "aabc", []int32{3, 5}, "0-2 2-4"},
		{"dup-merge", "abc", []int32{0, 4}, "0-1 1-3"},
		{"unk", "xyzab", []int32{0, 0, 0, 3}, "0-1 1-2 2-3 3-5"},
		{"unk", "axyb", []int32{1, 0, 0, 2}, "0-1 1-2 2-3 3-4"},
		{"unk", "abx", []int32{3, 0}, "0-2 2-3"},
		{"unk-fused", "xyzab", []int32{0, 3}, "0-3 3-5"},
		{"unk-fused", "axéyb", []int32{1, 0, 2}, "0-1 1-4 4-5"},
		{"unk-fused", "abx", []int32{3, 0}, "0-2 2-3"},
		{"no-unk", "axb", []int32{2}, "0-2"},
		{"no-unk", "xab", []int32{2}, "0-2"},
		{"no-unk", "abxx", []int32{2}, "0-2"},
		{"no-unk", "xx ab", []int32{2}, "0-2"},
		{"byte-fallback", "aéb", []int32{1, 4, 5, 2}, "0-1 1-2 1-2 2-3"},
		{"byte-fallback", "axb", []int32{1, 6, 2}, "0-1 1-2 2-3"},
		{"byte-fallback", "a€b", []int32{1, 0, 2}, "0-1 1-2 2-3"},
		{"byte-fallback", "a€éb", []int32{1, 4, 5, 0, 2}, "0-1 1-2 1-2 1-3 3-4"},
		{"byte-fallback", "€x", []int32{6, 0}, "0-1 0-2"},
		{"byte-fallback-no-unk", "aéb", []int32{1, 4, 5, 2}, "0-1 1-2 1-2 2-3"},
		{"byte-fallback-no-unk", "a€b", []int32{3}, "0-2"},
		{"ignore-merges", "hello", []int32{6}, "0-5"},
		{"ignore-merges", "hell", []int32{7}, "0-4"},
		{"ignore-merges", "helo", []int32{4, 2, 3}, "0-2 2-3 3-4"},
		{"no-ignore-merges", "hello", []int32{4, 5, 3}, "0-2 2-4 4-5"},
		{"no-ignore-merges", "hell", []int32{4, 5}, "0-2 2-4"},
		{"affixes", "abc", []int32{6}, "0-3"},
		{"affixes", "c", []int32{4}, "0-1"},
		{"affixes", "a", []int32{8}, "0-1"},
		{"affixes", "ab", []int32{1, 0}, "0-1 1-2"},
		{"affixes", "acb", []int32{1, 0, 0}, "0-1 1-2 2-3"},
		{"affixes", "aab", []int32{1, 9, 0}, "0-1 1-2 2-3"},
		{"affixes", "aabc", []int32{1, 9, 2, 3}, "0-1 1-2 2-3 3-4"},
		{"dropout-0", "abab", []int32{2, 2}, "0-2 2-4"},
		{"dropout-1", "abab", []int32{0, 1, 0, 1}, "0-1 1-2 2-3 3-4"},
		{"dropout-1", "ab", []int32{0, 1}, "0-1 1-2"},
	} {
		tk := tinyTokenizer(t, bpeModels[c.model], "null")
		for range 2 { // the second time from the cache
			ids, offs := offsetString(tk, c.text)
			if !slices.Equal(ids, c.ids) || offs != c.offsets {
				t.Errorf("%s %q: got %v %s, want %v %s", c.model, c.text, ids, offs, c.ids, c.offsets)
			}
		}
	}
}

// TestBPERefused: what tokenizers cannot do the same way twice (dropout
// strictly between 0 and 1), what it does only by failing or by giving
// offsets past the word, and unknown options.
func TestBPERefused(t *testing.T) {
	for _, model := range []string{
		`{"type":"BPE","vocab":{"a":0},"merges":[],"dropout":0.5}`,
		`{"type":"BPE","vocab":{"a":0},"merges":[],"unk_token":"<unk>"}`,
		`{"type":"BPE","vocab":{"a":0},"merges":[],"byte_fallback":true,"continuing_subword_prefix":"##"}`,
		`{"type":"BPE","vocab":{"a":0},"merges":[],"cache_capacity":10}`,
	} {
		if _, err := parse([]byte(tinyJSON(model, "null"))); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", model, err)
		}
	}
	for _, model := range []string{
		`{"type":"BPE","vocab":{"a":0},"merges":[],"dropout":1.5}`,
		`{"type":"BPE","vocab":{"a":0},"merges":[["a","b"]]}`,
		`{"type":"BPE","vocab":{"a":0,"b":1},"merges":[["a","b"]]}`,
		`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b c"]}`,
		`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b","c"]]}`,
		`{"type":"BPE","vocab":{"a":0}}`,
		`{"type":"BPE","merges":[]}`,
	} {
		if _, err := parse([]byte(tinyJSON(model, "null"))); err == nil {
			t.Errorf("%s: no error", model)
		}
	}
}

// TestBPEVocab: the vocabulary both ways, with a gap in the ids.
func TestBPEVocab(t *testing.T) {
	tk := tinyTokenizer(t, `{"type":"BPE","vocab":{"a":0,"b":1,"ab":3},"merges":[["a","b"]]}`, "null")
	if id, ok := tk.model.TokenToID("ab"); !ok || id != 3 {
		t.Errorf("tokenToID(ab) = %d, %v", id, ok)
	}
	if s, ok := tk.model.IDToToken(3); !ok || s != "ab" {
		t.Errorf("idToToken(3) = %q, %v", s, ok)
	}
	for _, id := range []int32{-1, 2, 4} {
		if s, ok := tk.model.IDToToken(id); ok {
			t.Errorf("idToToken(%d) = %q", id, s)
		}
	}
	if tk.model.Size() != 4 {
		t.Errorf("size %d, want 4", tk.model.Size())
	}
}

// TestBPEConcurrent encodes from many goroutines at once, through the
// shared cache (go test -race checks it).
func TestBPEConcurrent(t *testing.T) {
	tk := tinyTokenizer(t, bpeModels["ties"], byteLevelPre)
	texts := []string{"aaaa abc", "abcabc aabc aaaaa", "aaa bc", "c b a"}
	want := make([]string, len(texts))
	for i, s := range texts {
		ids, offs := offsetString(tk, s)
		want[i] = fmt.Sprint(ids, offs)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				i := (g + k) % len(texts)
				if ids, offs := offsetString(tk, texts[i]); fmt.Sprint(ids, offs) != want[i] {
					t.Errorf("%q: %v %s, want %s", texts[i], ids, offs, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

const byteLevelPre = `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":true}`
