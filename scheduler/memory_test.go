//go:build testhooks

package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// genSource makes n small documents on demand, so the input itself holds
// no memory; atEOF (if set) is called when the reader reaches the end.
type genSource struct {
	n     int64
	next  atomic.Int64
	atEOF func()
}

func (g *genSource) Next() (record.Document, error) {
	i := g.next.Load()
	if i == g.n {
		if g.atEOF != nil {
			g.atEOF()
		}
		return record.Document{}, io.EOF
	}
	g.next.Add(1)
	return record.Document{Seq: i, Pos: record.Position{File: "gen", At: i}, ID: json.RawMessage(strconv.FormatInt(i, 10)),
		Context:   fmt.Sprintf("%s %d says the company was founded in paris by ada lovelace and later moved to berlin", word(i), i),
		Questions: []string{"who founded the company"}}, nil
}

func word(i int64) string {
	if i == 0 {
		return "first"
	}
	return "document"
}

type discard struct{ answers, errors atomic.Int64 }

func (d *discard) WriteAnswer(record.AnswerRecord) error { d.answers.Add(1); return nil }
func (d *discard) WriteError(record.ErrorRecord) error   { d.errors.Add(1); return nil }

// peakHeap samples HeapInuse until stop is called and returns the largest.
func peakHeap() (stop func() uint64) {
	var peak uint64
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-quit:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(quit); <-finished; return peak }
}

// TestRunMemoryBounded: 50,000 documents through a fast replica keep the
// heap bounded, because the in-flight budget holds the reader back. To
// make the budget the only thing that can bound memory, document 0 is a
// straggler: its batch is held until the reader has stalled (or reached
// the end of the input), so every later document waits in the reorder
// buffer. With the budget, the reader blocks acquiring budget after about
// MaxInFlightBytes/(context bytes+1024) documents; without it, all 50,000
// documents pile up behind document 0 (checked: with MaxInFlightBytes
// 1<<40 the peak is about 100 MiB and the test fails).
//
// Measured on linux/amd64 (go1.26, 2 cores), peak HeapInuse: 9-13 MiB
// with the 4 MiB budget below; 52, 105 and 199 MiB for 25,000, 50,000 and
// 100,000 documents with the budget disabled (MaxInFlightBytes 1<<40), so
// about 2 KiB per waiting document. The 32 MiB bound is 2.5x the bounded
// peak and a third of the unbounded one.
func TestRunMemoryBounded(t *testing.T) {
	const n, bound = 50_000, 32 << 20
	// The gate opens when document 0 is held and the reader waits for
	// budget (the scheduler's hook says so as it blocks), or when the
	// reader reaches the end. Each side stores its state, then checks the
	// other's, so whichever comes second opens the gate.
	var held, waiting atomic.Bool
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	gate := func() {
		if held.Load() && waiting.Load() {
			open()
		}
	}
	src := &genSource{n: n, atEOF: open}
	defer open()
	zero := wordID("first") // only document 0 has this token
	fakes, rs := newReplicas(2, 0)
	for _, f := range fakes {
		f.before = func(ctx context.Context, b qa.Batch) error {
			if !batchHas(b, zero) {
				return nil
			}
			held.Store(true)
			gate()
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	cfg := testConfig()
	cfg.Settings.TopK = 1
	cfg.MaxBatchTokens = 2048
	cfg.MaxInFlightBytes = 4 << 20
	cfg.hooks.onBudgetWait = func(w bool) {
		waiting.Store(w)
		gate()
	}
	runtime.GC()
	stop := peakHeap()
	var sink discard
	sum, err := runGuarded(t, guard(t), cfg, src, rs, &sink, nil)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Documents != n || sink.answers.Load() != n {
		t.Fatalf("%d documents, %d answers, want %d", sum.Documents, sink.answers.Load(), n)
	}
	if !held.Load() {
		t.Fatal("document 0 was never held back")
	}
	t.Logf("peak HeapInuse %.1f MiB for %d documents (bound %d MiB)", float64(peak)/(1<<20), n, bound>>20)
	if peak > bound {
		t.Errorf("peak HeapInuse %.1f MiB exceeds %d MiB: the in-flight budget does not bound the queues", float64(peak)/(1<<20), bound>>20)
	}
}
