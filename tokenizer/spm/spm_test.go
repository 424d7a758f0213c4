package spm

import (
	"errors"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestNumberComma(t *testing.T) {
	for piece, want := range map[string]bool{
		"▁1,": false, "2010,": false, "²,": false, "a,": true, ",": true, "1": true, "▁,": true, "١,": false,
	} {
		if got := NumberComma(piece); got != want {
			t.Errorf("NumberComma(%q) = %v, want %v", piece, got, want)
		}
	}
}

// model serializes pieces (and a model type) as a ModelProto.
func model(typ int, pieces ...Piece) []byte {
	var out []byte
	for _, p := range pieces {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, p.Piece)
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, mathFloat32bits(p.Score))
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(p.Type))
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendBytes(out, b)
	}
	var tr []byte
	tr = protowire.AppendTag(tr, 3, protowire.VarintType)
	tr = protowire.AppendVarint(tr, uint64(typ))
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	return protowire.AppendBytes(out, tr)
}

func TestParse(t *testing.T) {
	raw := model(BPE, Piece{"<unk>", 0, Unknown}, Piece{"<s>", 0, Control}, Piece{"▁a", -1.5, Normal})
	m, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.ModelType != BPE || len(m.Pieces) != 3 || m.Pieces[2] != (Piece{"▁a", -1.5, Normal}) || m.PadID != -1 {
		t.Errorf("parsed %+v", m)
	}
	for name, bad := range map[string][]byte{
		"not protobuf": []byte("{\"model\": 1}"), "no pieces": model(Unigram),
		"no unknown piece": model(Unigram, Piece{"a", 0, Normal}), "truncated": raw[:len(raw)-3],
	} {
		if _, err := Parse(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
}

// TestMerges: merges follow the score of the merged piece (highest first),
// then the halves' lengths, then the halves' ids; a piece whose halves are
// not both pieces gives no merge.
func TestMerges(t *testing.T) {
	pieces := []Piece{{"<unk>", 0, Unknown}, {"a", 0, Normal}, {"b", 0, Normal}, {"c", 0, Normal},
		{"ab", -1, Normal}, {"bc", -2, Normal}, {"abc", -3, Normal}, {"cx", -0.5, Normal}}
	m := &Model{Pieces: pieces}
	var vocab []Scored
	for _, p := range pieces {
		vocab = append(vocab, Scored{p.Piece, float64(p.Score)})
	}
	got := Merges(m, vocab)
	want := [][2]string{{"a", "b"}, {"b", "c"}, {"ab", "c"}, {"a", "bc"}}
	if !slices.Equal(got, want) {
		t.Errorf("merges %v, want %v", got, want)
	}
}

func mathFloat32bits(f float32) uint32 { return math.Float32bits(f) }
