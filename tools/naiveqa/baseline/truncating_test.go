package baseline

import (
	"context"
	"strings"
	"testing"

	"qa-shard/qa"
)

// words tokenizes on spaces: one token per word, id 1000 + its index in
// the vocabulary below, offsets in code points.
type words struct{}

func (words) Encode(text string) qa.Tokens {
	var t qa.Tokens
	pos := 0
	for i, w := range strings.Split(text, " ") {
		n := len([]rune(w))
		t.IDs = append(t.IDs, int32(1000+len(w)))
		t.Offsets = append(t.Offsets, qa.Span{Start: int32(pos), End: int32(pos + n)})
		t.Words = append(t.Words, int32(i))
		pos += n + 1
	}
	return t
}

// peak is a model whose logits point at one token id: the answer is the
// first position holding it, wherever the window puts it.
type peak struct {
	id    int64
	lens  []int
	types [][]int64
}

func (p *peak) Run(_ context.Context, b qa.Batch) (qa.Logits, error) {
	p.lens = append(p.lens, b.Len)
	p.types = append(p.types, b.TypeIDs)
	l := qa.Logits{Start: make([]float32, b.Len), End: make([]float32, b.Len)}
	for i, id := range b.InputIDs {
		if id == p.id {
			l.Start[i], l.End[i] = 20, 20
			break
		}
	}
	return l, nil
}

func TestTruncatingSeesOnlyTheFirstTokens(t *testing.T) {
	// 30 filler words, then the answer "Lisbon" (the only 6-letter word).
	ctx := strings.Repeat("abc ", 30) + "Lisbon is here"
	m := &peak{id: 1006}
	r := Truncating{Model: m, Tok: words{}, Template: qa.BertTemplate(101, 102), MaxLen: 40, Settings: qa.DefaultSettings()}

	got, err := r.Answer(context.Background(), "where", ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Found || got.Answer.Text != "Lisbon" || got.Answer.Start != 120 {
		t.Fatalf("within reach: %+v", got)
	}
	if got.Fed != 37 || got.Kept != 33 || got.Total != 33 {
		t.Errorf("fed %d kept %d of %d tokens, want 37, 33, 33", got.Fed, got.Kept, got.Total)
	}

	r.MaxLen = 20 // [CLS] where [SEP] + 16 context tokens + [SEP]: Lisbon is cut off
	got, err = r.Answer(context.Background(), "where", ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer.Text == "Lisbon" || got.Fed != 20 || got.Kept != 16 || got.Total != 33 {
		t.Errorf("beyond reach: %+v", got)
	}
	if n := m.lens[len(m.lens)-1]; n != 20 {
		t.Errorf("the model got %d tokens, want 20 (batch of one, truncated)", n)
	}
	if ty := m.types[1]; ty[2] != 0 || ty[3] != 1 || ty[19] != 1 {
		t.Errorf("token types %v: want 0 for [CLS] q [SEP], 1 after", ty)
	}
}
