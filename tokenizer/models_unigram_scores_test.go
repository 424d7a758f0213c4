package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestSerdeScoresXLMR: the one word of the 5 MB parity corpus whose
// segmentation hangs on the scores' last bits. With ALBERT's scores as
// serde_json reads them, npm tokenizers@0.23.2 cuts "l" + 500 "o" + "ng"
// into 127 tokens beginning ▁lo, oooo, oooo, oo; with correctly rounded
// scores the third token would be oooo and the second oo.
func TestSerdeScoresXLMR(t *testing.T) {
	tk := familyTokenizer(t, "xlmr")
	e := tk.Encode("l" + strings.Repeat("o", 500) + "ng")
	want := []int32{2204, 28289, 28289, 4327}
	if e.Len() != 127 || !slices.Equal(e.IDs[:4], want) {
		t.Errorf("got %d tokens beginning %v, want 127 beginning %v", e.Len(), e.IDs[:min(4, e.Len())], want)
	}
}
