package bench

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/worker/tokenizer"
)

// The baselines qa-shard bench compares the pipeline with, and the
// process figures it reports.

// prebuilt makes batches of the recorded shapes from random ids, before
// any timing starts.
func prebuilt(shapes [][2]int) []qa.Batch {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]qa.Batch, len(shapes))
	for i, s := range shapes {
		n := s[0] * s[1]
		b := qa.Batch{Rows: s[0], Len: s[1], InputIDs: make([]int64, n), AttentionMask: make([]int64, n), TypeIDs: make([]int64, n)}
		for j := range n {
			b.InputIDs[j] = 1000 + r.Int64N(20000)
			b.AttentionMask[j] = 1
		}
		out[i] = b
	}
	return out
}

// replay runs batches of the recorded shapes, built beforehand from random
// ids, on the same replicas pulling from one queue: the model's ceiling
// with this batching, without tokenizing, decoding or writing.
func replay(reps []scheduler.Replica, pre []qa.Batch) (time.Duration, error) {
	batches := make(chan qa.Batch, len(pre))
	for _, b := range pre {
		batches <- b
	}
	close(batches)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(reps))
	for _, rep := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if _, err := rep.Run(context.Background(), b); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return time.Since(start), <-errs
}

// naive mimics the usual script: one document at a time, batch of one,
// context truncated so the pair fits 512 tokens, answer decoded.
func naive(rep scheduler.Replica, tok *tokenizer.Tokenizer, sp qa.Special, docs []benchDoc, question string) (rate, tokRate, seen float64, err error) {
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 512, 0
	var all, kept, fed int
	start := time.Now()
	for _, d := range docs {
		q, ctx := tok.Encode(question), tok.Encode(d.Context)
		all += ctx.Len()
		kept += min(ctx.Len(), 512-q.Len()-3)
		if keep := 512 - q.Len() - 3; ctx.Len() > keep {
			ctx = qa.Tokens{IDs: ctx.IDs[:keep], Offsets: ctx.Offsets[:keep], Words: ctx.Words[:keep]}
		}
		ws, err := qa.Windows(q, ctx, sp, s)
		if err != nil {
			return 0, 0, 0, err
		}
		w := ws[0]
		fed += w.Len()
		b := qa.Batch{Rows: 1, Len: w.Len(), InputIDs: make([]int64, w.Len()), AttentionMask: make([]int64, w.Len()), TypeIDs: make([]int64, w.Len())}
		for i, id := range w.IDs {
			b.InputIDs[i], b.AttentionMask[i], b.TypeIDs[i] = int64(id), 1, int64(w.TypeIDs[i])
		}
		l, err := rep.Run(context.Background(), b)
		if err != nil {
			return 0, 0, 0, err
		}
		res, err := qa.DecodeWindow(w, ctx, sp, l.Start, l.End, s)
		if err != nil {
			return 0, 0, 0, err
		}
		qa.Answers(d.Context, []qa.WindowResult{res}, s)
	}
	wall := time.Since(start).Seconds()
	return float64(len(docs)) / wall, float64(fed) / wall, float64(kept) / float64(max(all, 1)), nil
}

// cpuTime is the user and system time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAvg is the one-minute load average, to judge how noisy a run was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// peakRSS reads the process's high-water resident set size.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
