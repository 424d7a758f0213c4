package sim

import (
	"slices"
	"testing"

	"qa-shard/qa"
)

func TestWordTokenizer(t *testing.T) {
	got := WordTokenizer{}.Encode("  café  naïve\tx #901 #0 #1000 ")
	var wantOff []qa.Span
	for _, se := range [][2]int32{{2, 6}, {8, 13}, {14, 15}, {16, 20}, {21, 23}, {24, 29}} {
		wantOff = append(wantOff, qa.Span{Start: se[0], End: se[1]})
	}
	if !slices.Equal(got.Offsets, wantOff) {
		t.Fatalf("offsets %v, want %v (code points)", got.Offsets, wantOff)
	}
	if !slices.Equal(got.Words, []int32{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("words %v", got.Words)
	}
	if got.IDs[3] != 901 {
		t.Fatalf("marker #901 got id %d", got.IDs[3])
	}
	for _, i := range []int{0, 1, 2, 4, 5} {
		if id := got.IDs[i]; id < wordBase || id >= wordBase+wordSpan {
			t.Errorf("word %d: id %d outside the hashed range", i, id)
		}
	}
	if got.IDs[0] == got.IDs[1] || wordID("café") != got.IDs[0] {
		t.Fatalf("ids %v are not a function of the word", got.IDs)
	}
	if n := (WordTokenizer{}).Encode(" \n "); n.Len() != 0 {
		t.Fatalf("blank text gave %d tokens", n.Len())
	}
}
