package scheduler

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"qa-shard/qa"
)

// TestRunLogitsRows: the logits sink gets one row per window in input
// order (document, question, window), each row laid out like its window
// alone: ids, sequence ids, word ids and offsets of its own tokens, and
// the logits of its real positions only.
func TestRunLogitsRows(t *testing.T) {
	const n = 40
	questions := []string{"who founded the company", "where is it"}
	lines := corpus(n, 150, 8)
	_, rs := newReplicas(3, time.Millisecond)
	var sink memSink
	var rows rowSink
	cfg := testConfig()
	cfg.Settings.TopK = 1
	if _, err := runGuarded(t, guard(t), cfg, source(lines, questions...), rs, &sink, &rows); err != nil {
		t.Fatal(err)
	}
	var tok wordTokenizer
	k := 0
	for doc := range n {
		context := contextOf(t, lines[doc])
		ctx := tok.Encode(context)
		for qi, q := range questions {
			qt := tok.Encode(q)
			_, ws := expectedAnswers(t, context, q, cfg.Settings)
			for wi, w := range ws {
				if k >= len(rows.rows) {
					t.Fatalf("only %d rows", len(rows.rows))
				}
				r := rows.rows[k]
				k++
				if r.Pos.At != offsetOf(lines, int64(doc)+1) || string(r.ID) != strconv.Itoa(doc) || r.QuestionIndex != int32(qi) || r.Question != q || r.Window != int32(wi) {
					t.Fatalf("row %d is (%v, id %s, question %d %q, window %d), want (%d, %d, %q, %d)",
						k-1, r.Pos, r.ID, r.QuestionIndex, r.Question, r.Window, doc, qi, q, wi)
				}
				l := w.Len()
				if len(r.InputIDs) != l || len(r.SequenceIDs) != l || len(r.WordIDs) != l || len(r.OffsetStart) != l ||
					len(r.OffsetEnd) != l || len(r.StartLogits) != l || len(r.EndLogits) != l {
					t.Fatalf("row %d: column lengths differ from the window's %d tokens", k-1, l)
				}
				if !slices.Equal(r.InputIDs, w.IDs) {
					t.Errorf("row %d: input ids %v, want %v", k-1, r.InputIDs, w.IDs)
				}
				for i := range l {
					seq, word, off := int8(-1), int32(-1), qa.Span{}
					switch {
					case i >= 1 && i <= qt.Len():
						seq, word, off = 0, qt.Words[i-1], qt.Offsets[i-1]
					case i >= qt.Len()+2 && i < l-1:
						c := w.From + i - qt.Len() - 2
						seq, word, off = 1, ctx.Words[c], ctx.Offsets[c]
					}
					got := qa.Span{Start: r.OffsetStart[i], End: r.OffsetEnd[i]}
					if r.SequenceIDs[i] != seq || r.WordIDs[i] != word || got != off {
						t.Errorf("row %d position %d: sequence %d word %d offsets %v, want %d %d %v", k-1, i, r.SequenceIDs[i], r.WordIDs[i], got, seq, word, off)
					}
					if r.StartLogits[i] != startLogit(int64(w.IDs[i])) || r.EndLogits[i] != endLogit(int64(w.IDs[i])) {
						t.Errorf("row %d position %d: logits %v %v are not the token's", k-1, i, r.StartLogits[i], r.EndLogits[i])
					}
				}
			}
		}
	}
	if k != len(rows.rows) {
		t.Errorf("%d rows, want %d", len(rows.rows), k)
	}
}
