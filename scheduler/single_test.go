package scheduler

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"qa-shard/qa"
)

// TestSingleWindowBatches: with SingleWindowBatches every batch a replica
// runs is one window at its own length, whatever the token budget, and
// the answers are those of every window decoded alone.
func TestSingleWindowBatches(t *testing.T) {
	const n = 60
	lines := corpus(n, 150, 9)
	fakes, rs := newReplicas(3, time.Millisecond)
	var batches, shaped atomic.Int64
	for _, f := range fakes {
		f.before = func(_ context.Context, b qa.Batch) error {
			batches.Add(1)
			padded := false
			for _, m := range b.AttentionMask {
				padded = padded || m == 0
			}
			if b.Rows != 1 || padded {
				shaped.Add(1)
			}
			return nil
		}
	}
	cfg := testConfig()
	cfg.MaxBatchTokens = 1 << 20 // would put everything in a few batches
	cfg.SingleWindowBatches = true
	var sink memSink
	sum, err := runGuarded(t, guard(t), cfg, source(lines, "who founded the company"), rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if shaped.Load() > 0 {
		t.Errorf("%d of %d batches had several rows or padding", shaped.Load(), batches.Load())
	}
	if sum.Batches != sum.Windows || sum.PaddedTokens != sum.Tokens || sum.Windows <= n {
		t.Errorf("summary: %d windows in %d batches, %d tokens of %d positions; want one batch per window, no padding, several windows per document", sum.Windows, sum.Batches, sum.Tokens, sum.PaddedTokens)
	}
	if len(sink.records) != n {
		t.Fatalf("%d records, want %d", len(sink.records), n)
	}
	for doc, r := range sink.records {
		if r.answer == nil {
			t.Fatalf("record %d is an error: %+v", doc, *r.err)
		}
		want, _ := expectedAnswers(t, contextOf(t, lines[doc]), "who founded the company", testSettings())
		got := make([]qa.Answer, len(r.answer.Answers))
		for i, x := range r.answer.Answers {
			got[i] = qa.Answer{Text: x.Answer, Score: x.Score, Start: x.Start, End: x.End, SpanLogit: x.SpanLogit, NullLogit: r.answer.NullLogit}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("doc %d: %+v, want %+v", doc, got, want)
		}
	}
}

func TestSingles(t *testing.T) {
	lengths := []int{30, 9, 17, 9}
	c := cutter{single: true, maxRows: 8}
	var got []int
	for run := sortRun(windowsOfLen(t, lengths)); run != nil; {
		var b *batch
		b, run = c.next(run, 1<<20)
		if len(b.refs) != 1 || b.len != b.refs[0].window().Len() {
			t.Fatalf("batch of %d rows of length %d; want one window at its own length %d", len(b.refs), b.len, b.refs[0].window().Len())
		}
		got = append(got, b.len)
	}
	if fmt.Sprint(got) != "[9 9 17 30]" {
		t.Fatalf("windows %v, want each of %v once", got, lengths)
	}
}
