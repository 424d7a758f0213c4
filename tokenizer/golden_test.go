package tokenizer

import (
	"encoding/json"
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
	Name     string    `json:"name"`
	Question string    `json:"question"`
	Context  string    `json:"context"`
	Seq0     goldenSeq `json:"seq0"`
	Seq1     goldenSeq `json:"seq1"`
	HF       struct {
		IDs         []int32  `json:"ids"`
		TypeIDs     []int32  `json:"type_ids"`
		SequenceIDs []*int32 `json:"sequence_ids"`
	} `json:"hf"`
}

func loadGolden(t *testing.T) []goldenPair {
	t.Helper()
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var pairs []goldenPair
	if err := json.Unmarshal(raw, &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 40 {
		t.Fatalf("only %d golden pairs", len(pairs))
	}
	return pairs
}

// TestParityGolden: for every hostile pair, Encode(question) and
// Encode(context) equal the two sequences of Hugging Face's pair encoding
// (ids, word ids and code-point offsets), and the pair itself is framed
// [CLS] q [SEP] c [SEP] with the ids SpecialIDs reports.
func TestParityGolden(t *testing.T) {
	tk := bertTokenizer(t)
	cls, sep, _ := tk.SpecialIDs()
	for _, p := range loadGolden(t) {
		t.Run(p.Name, func(t *testing.T) {
			checkSeq(t, "question", tk.Encode(p.Question), p.Seq0)
			checkSeq(t, "context", tk.Encode(p.Context), p.Seq1)
			want := slices.Concat([]int32{cls}, p.Seq0.IDs, []int32{sep}, p.Seq1.IDs, []int32{sep})
			if !slices.Equal(p.HF.IDs, want) {
				t.Errorf("HF pair ids are not [CLS] q [SEP] c [SEP]: %v", p.HF.IDs)
			}
			n0 := len(p.Seq0.IDs)
			for i, ty := range p.HF.TypeIDs {
				wantTy := int32(0)
				if i > n0+1 {
					wantTy = 1
				}
				if ty != wantTy {
					t.Errorf("HF type id %d at %d, want %d", ty, i, wantTy)
					break
				}
			}
		})
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
