package scheduler

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// TestRunOrderAndAnswers: four replicas finish batches in a scrambled
// order (random delays, and the batch holding document 0 is held back
// until three other batches have completed), yet every (document,
// question) comes out once, in input order, with the answers of its
// windows decoded alone and unpadded.
func TestRunOrderAndAnswers(t *testing.T) {
	const n = 300
	questions := []string{"who founded the company", "where is the headquarters"}
	lines := corpus(n, 150, 1)
	lines[0] = jsonLine(0, "straggler company founded in paris")
	marker := wordID("straggler")

	var others atomic.Int64
	released := make(chan struct{})
	fakes, rs := newReplicas(4, 2*time.Millisecond)
	for _, f := range fakes {
		f.before = func(ctx context.Context, b qa.Batch) error {
			if !batchHas(b, marker) {
				return nil
			}
			select {
			case <-released:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		f.after = func(b qa.Batch) {
			if !batchHas(b, marker) && others.Add(1) == 3 {
				close(released)
			}
		}
	}
	var sink memSink
	sum, err := runGuarded(t, guard(t), testConfig(), source(lines, questions...), rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("document 0 was never held back: the test did not scramble completion")
	}

	if len(sink.records) != n*len(questions) {
		t.Fatalf("%d records, want %d", len(sink.records), n*len(questions))
	}
	var windows, tokens int64
	for k, r := range sink.records {
		doc, q := k/len(questions), questions[k%len(questions)]
		if r.answer == nil {
			t.Fatalf("record %d is an error: %+v", k, *r.err)
		}
		a := r.answer
		if string(a.ID) != strconv.Itoa(doc) || a.Question != q {
			t.Fatalf("record %d is (id %s, %q), want (id %d, %q): output out of order", k, a.ID, a.Question, doc, q)
		}
		want, ws := expectedAnswers(t, contextOf(t, lines[doc]), q, testSettings())
		windows += int64(len(ws))
		for _, w := range ws {
			tokens += int64(w.Len())
		}
		got := make([]qa.Answer, len(a.Answers))
		for i, x := range a.Answers {
			got[i] = qa.Answer{Text: x.Answer, Score: x.Score, Start: x.Start, End: x.End, SpanLogit: x.SpanLogit, NullLogit: r.answer.NullLogit}
		}
		if !reflect.DeepEqual(got, want) || a.Windows != len(ws) {
			t.Errorf("doc %d %q: got %d windows %+v, want %d windows %+v", doc, q, a.Windows, got, len(ws), want)
		}
		if a.Answer != want[0].Text || a.Score != want[0].Score || a.Start != want[0].Start || a.End != want[0].End || a.SpanLogit != want[0].SpanLogit || a.NullLogit != want[0].NullLogit {
			t.Errorf("doc %d %q: best answer %q %v [%d,%d), want %+v", doc, q, a.Answer, a.Score, a.Start, a.End, want[0])
		}
	}
	if sum.Documents != n || sum.Pairs != n*2 || sum.RecordErrors != 0 || sum.Windows != windows || sum.Tokens != tokens {
		t.Errorf("summary %+v, want %d documents, %d pairs, 0 errors, %d windows, %d tokens", sum, n, 2*n, windows, tokens)
	}
	if windows <= 2*n {
		t.Errorf("only %d windows for %d pairs: the corpus does not exercise multi-window documents", windows, 2*n)
	}
}

// TestRunBadRecords: bad lines and a question that does not fit become
// error records at their place; the other question of the same document
// is answered; the summary counts what happened.
func TestRunBadRecords(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("why is this question so long ", 14)) // 84 words > 64 tokens
	short := "who founded the company"
	good := contexts(3, 120, 2)
	lines := []string{
		jsonLine(0, good[0]),
		`{"id": 1, "context": `,
		`{"id": 2, "context": "ada founded the company in paris", "question": ` + strconv.Quote(long) + `}`,
		`{"id": 3}`,
		jsonLine(4, good[1]),
		`{"id": 5, "context": ""}`,
		`{"id": 6, "context": "the company moved to berlin", "questions": [` + strconv.Quote(long) + `, "where is it"]}`,
		jsonLine(7, good[2]),
	}
	type want struct {
		id, question, errPart string // errPart "" for an answer
		line                  int64
	}
	wants := []want{
		{"0", short, "", 1},
		{"", "", record.ErrMalformedJSON.Error(), 2},
		{"2", short, "", 3},
		{"2", long, qa.ErrQuestionTooLong.Error(), 3},
		{"3", "", record.ErrMissingContext.Error(), 4},
		{"4", short, "", 5},
		{"5", "", record.ErrEmptyContext.Error(), 6},
		{"6", short, "", 7},
		{"6", long, qa.ErrQuestionTooLong.Error(), 7},
		{"6", "where is it", "", 7},
		{"7", short, "", 8},
	}

	fakes, rs := newReplicas(2, 0)
	var sink memSink
	sum, err := runGuarded(t, guard(t), testConfig(), source(lines, short), rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.records) != len(wants) {
		t.Fatalf("%d records, want %d", len(sink.records), len(wants))
	}
	var windows, tokens, pairs int64
	for k, w := range wants {
		r := sink.records[k]
		t.Run(fmt.Sprintf("record%d", k), func(t *testing.T) {
			if w.errPart != "" {
				if r.err == nil {
					t.Fatalf("got answer %+v, want error %q", *r.answer, w.errPart)
				}
				e := r.err
				if (w.id != "" && string(e.ID) != w.id) || (w.id == "" && e.ID != nil) || e.Pos.At != offsetOf(lines, w.line) ||
					e.Question != w.question || !strings.Contains(e.Error, w.errPart) {
					t.Errorf("error record %+v (id %s), want id %q line %d question %q error containing %q", *e, e.ID, w.id, w.line, w.question, w.errPart)
				}
				return
			}
			if r.answer == nil {
				t.Fatalf("got error %+v, want answer", *r.err)
			}
			if string(r.answer.ID) != w.id || r.answer.Question != w.question {
				t.Errorf("answer (id %s, %q), want (id %s, %q)", r.answer.ID, r.answer.Question, w.id, w.question)
			}
		})
		if w.errPart == "" {
			pairs++
			_, ws := expectedAnswers(t, contextOf(t, lines[w.line-1]), w.question, testSettings())
			windows += int64(len(ws))
			for _, x := range ws {
				tokens += int64(x.Len())
			}
		}
	}
	var padded, batches, fedTokens int64
	for _, f := range fakes {
		padded += f.padded.Load()
		batches += f.calls.Load()
		fedTokens += f.tokens.Load()
	}
	wantSum := Summary{Documents: 8, Pairs: pairs, RecordErrors: int64(len(wants)) - pairs,
		Windows: windows, Tokens: tokens, PaddedTokens: padded, Batches: batches, Next: 8}
	gotSum := sum
	gotSum.Wall, gotSum.ReplicaCounts, gotSum.Replicas = 0, nil, nil
	if !reflect.DeepEqual(gotSum, wantSum) || fedTokens != tokens {
		t.Errorf("summary %+v\nwant    %+v (replicas saw %d real tokens)", gotSum, wantSum, fedTokens)
	}
	if padded < tokens || padded%8 != 0 {
		t.Errorf("padded tokens %d: below %d real tokens or not whole rows of multiples of 8", padded, tokens)
	}
}

// TestRunEveryReplicaWorks: dispatch is pull-based, so every replica gets
// batches. Each replica's first batch waits until all four replicas hold
// one: a dispatcher that fed fewer replicas would hang here (the guard
// turns that into a failure).
func TestRunEveryReplicaWorks(t *testing.T) {
	fakes, rs := newReplicas(4, 0)
	var entered atomic.Int64
	all := make(chan struct{})
	for _, f := range fakes {
		var once sync.Once
		f.before = func(ctx context.Context, _ qa.Batch) error {
			once.Do(func() {
				if entered.Add(1) == int64(len(fakes)) {
					close(all)
				}
			})
			select {
			case <-all:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	cfg := testConfig()
	cfg.MaxBatchTokens = 128
	var sink memSink
	sum, err := runGuarded(t, guard(t), cfg, source(corpus(200, 100, 3), "who founded the company"), rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range fakes {
		got := sum.ReplicaCounts[f.name]
		if got == 0 || got != f.rows.Load() {
			t.Errorf("replica %s: summary counts %d windows, replica ran %d", f.name, got, f.rows.Load())
		}
		total += got
	}
	if total != sum.Windows || sum.Batches < int64(len(fakes)) {
		t.Errorf("replica windows add up to %d, summary has %d windows in %d batches", total, sum.Windows, sum.Batches)
	}
}
