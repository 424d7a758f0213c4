package scheduler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"qa-shard/qa"
)

// windowsOfLen returns one docState per length, each with a single window
// of exactly that many tokens (specials included), cut by qa.Windows.
func windowsOfLen(t *testing.T, lengths []int) []windowRef {
	t.Helper()
	var tok wordTokenizer
	s := qa.Settings{MaxSeqLen: 4096, DocStride: 16, MaxAnswerLen: 15, TopK: 1}
	refs := make([]windowRef, len(lengths))
	for i, l := range lengths {
		ctx := tok.Encode(strings.Repeat("word ", l-5) + "end") // l-4 tokens
		ws, err := qa.Windows(tok.Encode("who"), ctx, special, s)
		if err != nil || len(ws) != 1 || ws[0].Len() != l {
			t.Fatalf("window of %d tokens: %v", l, err)
		}
		d := &docState{ctx: ctx, questions: []questionState{{windows: ws}}}
		refs[i] = windowRef{doc: d}
	}
	return refs
}

func TestCutBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	random := make([]int, 500)
	for i := range random {
		random[i] = 5 + rng.IntN(200)
	}
	cases := []struct {
		name      string
		lengths   []int
		maxTokens int
	}{
		{"empty", nil, 128},
		{"random", random, 512},
		{"random small budget", random, 100},
		{"exact fit", []int{16, 16, 16, 16, 16, 16, 16, 16}, 128},
		{"multiples of 8 boundaries", []int{17, 8, 9, 16, 8, 24, 25, 9}, 64},
		{"longer than budget runs alone", []int{10, 300, 20, 12, 301}, 128},
		{"padding pushes past budget", []int{97, 6, 7}, 100},
		{"ties keep pool order", []int{30, 12, 30, 12, 30, 12}, 96},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pool := windowsOfLen(t, c.lengths)
			batches := cutBatches(pool, c.maxTokens, 0)
			if len(pool) == 0 {
				if batches != nil {
					t.Fatalf("empty pool gave %d batches", len(batches))
				}
				return
			}
			index := map[*docState]int{}
			for i, r := range pool {
				index[r.doc] = i
			}
			seen := make([]int, len(pool))
			prevLen, prevIdx := 0, -1
			for bi, b := range batches {
				rows := len(b.refs)
				if rows == 0 {
					t.Fatalf("batch %d is empty", bi)
				}
				longest := 0
				for _, r := range b.refs {
					l, i := r.window().Len(), index[r.doc]
					seen[i]++
					longest = max(longest, l)
					if l < prevLen || (l == prevLen && i < prevIdx) {
						t.Errorf("batch %d: window %d (len %d) after window %d (len %d): not a stable sort by length", bi, i, l, prevIdx, prevLen)
					}
					prevLen, prevIdx = l, i
				}
				if b.len%8 != 0 || b.len < longest || b.len >= longest+8 {
					t.Errorf("batch %d: padded length %d for a longest window of %d", bi, b.len, longest)
				}
				if rows*b.len > c.maxTokens && rows > 1 {
					t.Errorf("batch %d: %d rows x %d = %d tokens, budget %d", bi, rows, b.len, rows*b.len, c.maxTokens)
				}
				// Greedy: the next batch's first window did not fit here.
				if bi+1 < len(batches) {
					next := padTo8(batches[bi+1].refs[0].window().Len())
					if (rows+1)*next <= c.maxTokens {
						t.Errorf("batch %d cut early: %d rows of %d would still fit %d", bi, rows+1, next, c.maxTokens)
					}
				}
			}
			for i, n := range seen {
				if n != 1 {
					t.Errorf("window %d (len %d) is in %d batches", i, c.lengths[i], n)
				}
			}
		})
	}
}

func TestBatchTensors(t *testing.T) {
	var tok wordTokenizer
	s := qa.Settings{MaxSeqLen: 12, DocStride: 2, MaxAnswerLen: 15, TopK: 1}
	ctx := tok.Encode("one two three four five six seven eight nine ten eleven")
	ws, err := qa.Windows(tok.Encode("which number"), ctx, special, s)
	if err != nil || len(ws) < 2 {
		t.Fatalf("windows: %d, %v", len(ws), err)
	}
	d := &docState{ctx: ctx, questions: []questionState{{windows: ws}}}
	short := windowsOfLen(t, []int{5})[0]
	b := &batch{refs: []windowRef{short, {doc: d, w: 0}, {doc: d, w: len(ws) - 1}}, len: 16}
	const pad = 7 // not 0, so padding cannot pass for zeroed memory
	in := b.tensors(pad)
	if in.Rows != 3 || in.Len != 16 || len(in.InputIDs) != 48 || len(in.AttentionMask) != 48 || len(in.TypeIDs) != 48 {
		t.Fatalf("tensors %dx%d with %d/%d/%d values", in.Rows, in.Len, len(in.InputIDs), len(in.AttentionMask), len(in.TypeIDs))
	}
	for i, r := range b.refs {
		w := r.window()
		for j := range in.Len {
			k := i*in.Len + j
			id, mask, typ := in.InputIDs[k], in.AttentionMask[k], in.TypeIDs[k]
			want := fmt.Sprint(pad, 0, 0)
			if j < len(w.IDs) {
				want = fmt.Sprint(w.IDs[j], 1, w.TypeIDs[j])
			}
			if got := fmt.Sprint(id, mask, typ); got != want {
				t.Errorf("row %d position %d: id, mask, type %s, want %s", i, j, got, want)
			}
		}
	}
	var ones int64
	for _, x := range in.TypeIDs {
		ones += x
	}
	if ones == 0 {
		t.Error("no type id is 1: the context part was not copied")
	}
}

// TestCutBatchesRowCap: a row cap splits batches the token budget alone
// would allow, and never leaves a batch over it.
func TestCutBatchesRowCap(t *testing.T) {
	pool := windowsOfLen(t, []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8})
	batches := cutBatches(pool, 1<<20, 3)
	var rows []int
	for _, b := range batches {
		rows = append(rows, len(b.refs))
	}
	if fmt.Sprint(rows) != "[3 3 3 1]" {
		t.Errorf("rows per batch %v, want [3 3 3 1]", rows)
	}
}

// TestCutShortMeasuresNothing: a batch cut at the budget keeps it for the
// Shaper; the tail of a run that ran out of windows with room for another
// reports 0 (it measures the pool, not the budget), and so does none that
// is full.
func TestCutShortMeasuresNothing(t *testing.T) {
	run := sortRun(windowsOfLen(t, []int{16, 16, 16, 16, 16}))
	head, rest := cut(run, 64, 0) // four rows of 16 fill 64
	if len(head.refs) != 4 || head.budget != 64 || rest == nil {
		t.Fatalf("first batch: %d rows, budget %d, rest %v; want 4 rows at budget 64 and a rest", len(head.refs), head.budget, rest != nil)
	}
	tail, rest := cut(rest, 64, 0) // one row of 16 where four fit
	if len(tail.refs) != 1 || tail.budget != 0 || rest != nil {
		t.Fatalf("tail: %d rows, budget %d, rest %v; want 1 row reported at budget 0 and nothing left", len(tail.refs), tail.budget, rest != nil)
	}
	exact := sortRun(windowsOfLen(t, []int{16, 16}))
	if b, _ := cut(exact, 32, 0); b.budget != 32 {
		t.Errorf("a run that fills its budget exactly: budget %d, want 32", b.budget)
	}
	if b, _ := cut(sortRun(windowsOfLen(t, []int{16, 16})), 64, 2); b.budget != 64 {
		t.Errorf("a run that fills the row cap: budget %d, want 64", b.budget)
	}
}
