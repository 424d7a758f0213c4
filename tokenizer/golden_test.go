package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"qa-shard/qa"
)

// goldenSeq is one sequence of a Hugging Face pair encoding.
type goldenSeq struct {
	IDs     []int32    `json:"ids"`
	Tokens  []string   `json:"tokens"`
	Words   []int32    `json:"words"`
	Offsets [][2]int32 `json:"offsets"`
}

type goldenPair struct {
	Name     string         `json:"name"`
	Question string         `json:"question"`
	Context  string         `json:"context"`
	Seq0     goldenSeq      `json:"seq0"`
	Seq1     goldenSeq      `json:"seq1"`
	HF       goldenEncoding `json:"hf"`
	// Windows are HF's windows of the pair at max_length 64, stride 16
	// (family goldens only); WindowsError when HF refuses to cut them.
	Windows      []goldenEncoding `json:"windows"`
	WindowsError string           `json:"windows_error"`
}

// goldenEncoding is Hugging Face's encoding of a whole pair, specials
// included.
type goldenEncoding struct {
	IDs         []int32    `json:"ids"`
	Tokens      []string   `json:"tokens"`
	TypeIDs     []int32    `json:"type_ids"`
	SequenceIDs []*int32   `json:"sequence_ids"`
	WordIDs     []*int32   `json:"word_ids"`
	Offsets     [][2]int32 `json:"offsets"`
}

// sequence is the part of a pair encoding with sequence id s.
func (e goldenEncoding) sequence(s int32) goldenSeq {
	out := goldenSeq{IDs: []int32{}, Words: []int32{}, Offsets: [][2]int32{}}
	for i, sid := range e.SequenceIDs {
		if sid == nil || *sid != s {
			continue
		}
		out.IDs = append(out.IDs, e.IDs[i])
		if i < len(e.Tokens) { // goldens of real files keep no tokens
			out.Tokens = append(out.Tokens, e.Tokens[i])
		}
		out.Words = append(out.Words, *e.WordIDs[i])
		out.Offsets = append(out.Offsets, e.Offsets[i])
	}
	return out
}

func loadGolden(t *testing.T) []goldenPair {
	t.Helper()
	return loadGoldenFile(t, "testdata/golden.json")
}

func loadGoldenFile(t *testing.T, path string) []goldenPair {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []goldenPair
	if err := json.Unmarshal(raw, &pairs); err != nil {
		t.Fatal(err)
	}
	for i := range pairs {
		// Family goldens hold the pair only: its sequences are the
		// positions of each sequence id.
		if pairs[i].Seq0.IDs == nil && pairs[i].Seq1.IDs == nil {
			pairs[i].Seq0, pairs[i].Seq1 = pairs[i].HF.sequence(0), pairs[i].HF.sequence(1)
		}
	}
	if len(pairs) < 40 {
		t.Fatalf("only %d golden pairs", len(pairs))
	}
	return pairs
}

// TestParityGolden: for every hostile pair, on the BERT fast path and on
// the general pipeline, Encode(question) and Encode(context) equal the two
// sequences of Hugging Face's pair encoding, and the window qa.Windows
// frames them in equals HF's whole pair encoding.
func TestParityGolden(t *testing.T) {
	fast := bertTokenizer(t)
	general, err := Load(bertTokenizerPath(t)) // a copy of its own: bertTokenizer's is shared
	if err != nil {
		t.Fatal(err)
	}
	general.fast = nil
	for _, tk := range []*Tokenizer{fast, general} {
		for _, p := range loadGolden(t) {
			t.Run(p.Name, func(t *testing.T) { checkPair(t, tk, p) })
		}
	}
}

// checkPair compares the encodings of one golden pair: each sequence, and
// the whole pair as one window of qa.Windows.
func checkPair(t *testing.T, tk *Tokenizer, p goldenPair) {
	t.Helper()
	q, c := tk.Encode(p.Question), tk.Encode(p.Context)
	checkSeq(t, "question", q, p.Seq0)
	checkSeq(t, "context", c, p.Seq1)
	if len(p.Seq0.IDs) == 0 || len(p.Seq1.IDs) == 0 {
		return // qa refuses an empty question or context
	}
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = len(p.HF.IDs)+1, 0
	ws, err := qa.Windows(q, c, tk.Template(), s)
	if err != nil || len(ws) != 1 {
		t.Fatalf("windows: %d, %v", len(ws), err)
	}
	checkWindow(t, "pair", ws[0], c, p.HF)
}

// checkWindow compares one window with HF's encoding of it: ids, type ids,
// and every position's sequence id, word id and offsets.
func checkWindow(t *testing.T, what string, w qa.Window, c qa.Tokens, hf goldenEncoding) {
	t.Helper()
	if !slices.Equal(w.IDs, hf.IDs) {
		t.Fatalf("%s ids:\n got %v\nwant %v (%q)", what, w.IDs, hf.IDs, hf.Tokens)
	}
	if !slices.Equal(w.TypeIDs, hf.TypeIDs) {
		t.Errorf("%s type ids:\n got %v\nwant %v", what, w.TypeIDs, hf.TypeIDs)
	}
	for i := range w.IDs {
		seq, word, off := w.Position(c, i)
		wantSeq, wantWord := int8(-1), int32(-1)
		if hf.SequenceIDs[i] != nil {
			wantSeq = int8(*hf.SequenceIDs[i])
		}
		if hf.WordIDs[i] != nil {
			wantWord = *hf.WordIDs[i]
		}
		if seq != wantSeq || word != wantWord || [2]int32{off.Start, off.End} != hf.Offsets[i] {
			t.Errorf("%s position %d (id %d): sequence %d word %d offsets %v, want %d %d %v",
				what, i, hf.IDs[i], seq, word, off, wantSeq, wantWord, hf.Offsets[i])
		}
	}
}

// checkWindows compares qa.Windows at max_seq_len 64 and stride 16 with
// the windows HF's truncation cuts (Encoding::truncate, then the
// post-processor on each window).
func checkWindows(t *testing.T, tk *Tokenizer, p goldenPair) {
	t.Helper()
	q, c := tk.Encode(p.Question), tk.Encode(p.Context)
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 64, 16
	ws, err := qa.Windows(q, c, tk.Template(), s)
	if q.Len() == 0 || c.Len() == 0 {
		// HF frames an empty sequence; qa-shard makes the document an
		// error record instead ("context has no tokens").
		if err == nil {
			t.Fatalf("a pair with %d question and %d context tokens was cut into %d windows", q.Len(), c.Len(), len(ws))
		}
		return
	}
	if p.WindowsError != "" {
		if err == nil {
			t.Fatalf("HF refuses to cut windows (%s), qa.Windows cut %d", p.WindowsError, len(ws))
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != len(p.Windows) {
		t.Fatalf("%d windows, HF cut %d", len(ws), len(p.Windows))
	}
	for i, w := range ws {
		checkWindow(t, fmt.Sprintf("window %d", i), w, c, p.Windows[i])
	}
}

func checkSeq(t *testing.T, what string, got qa.Tokens, want goldenSeq) {
	t.Helper()
	if len(got.IDs) != len(got.Offsets) || len(got.IDs) != len(got.Words) {
		t.Fatalf("%s: %d ids, %d offsets, %d words", what, len(got.IDs), len(got.Offsets), len(got.Words))
	}
	offs := make([][2]int32, len(got.Offsets))
	for i, o := range got.Offsets {
		offs[i] = [2]int32{o.Start, o.End}
	}
	if !slices.Equal(got.IDs, want.IDs) {
		t.Errorf("%s ids:\n got %v\nwant %v (%q)", what, got.IDs, want.IDs, want.Tokens)
	}
	if !slices.Equal(got.Words, want.Words) {
		t.Errorf("%s word ids:\n got %v\nwant %v", what, got.Words, want.Words)
	}
	if !slices.Equal(offs, want.Offsets) {
		t.Errorf("%s offsets:\n got %v\nwant %v", what, offs, want.Offsets)
	}
}

// TestGoldenCoversHostileCases keeps the golden file honest: the cases the
// parity claim rests on must actually be in it.
func TestGoldenCoversHostileCases(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range loadGolden(t) {
		seen[p.Name] = true
	}
	for _, name := range []string{
		"accents-precomposed", "accents-combining", "cjk-supplementary", "emoji-zwj-skin", "unicode-spaces",
		"control-chars", "private-use", "zero-width", "unk-over-100-chars", "over-100-bytes-under-100-chars",
		"urls", "numbers-punct", "turkish-dotted", "greek-final-sigma", "german-sharp-s", "ligatures",
		"fullwidth", "arabic", "hebrew", "devanagari", "thai", "literal-specials", "a-stroke", "tabs-newlines-crlf",
	} {
		if !seen[name] {
			t.Errorf("golden pair %q is missing", name)
		}
	}
}
