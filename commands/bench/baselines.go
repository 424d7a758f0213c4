package bench

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"time"

	"qa-shard/job"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/tokenizer"
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

// naiveResult is one run of the naive loop.
type naiveResult struct {
	docsPerSec, tokensPerSec float64
	seen                     float64 // share of the context tokens it reads
	docs                     int
}

// naiveRun runs the naive loop on one session of every core.
func (ms *models) naiveRun(ctx context.Context, o options, docs []benchDoc) (naiveResult, error) {
	mi, err := ms.get(o.Model)
	if err != nil {
		return naiveResult{}, err
	}
	fl, err := job.StartFleet(ctx, job.Replicas{Simulate: Simulated, MaxSeqLen: 512,
		Devices:  job.DeviceOptions{Devices: o.Devices, Provider: o.Provider, ReplicasPerDevice: 1, TRTCacheDir: "trt-cache"},
		Pipeline: job.PipelineOptions{MaxBatchTokens: 512}}, mi.m)
	if err != nil {
		return naiveResult{}, err
	}
	defer fl.Close()
	docs = docs[:min(max(1, o.NaiveDocs), len(docs))]
	rate, tokRate, seen, err := naive(fl.Replicas[0], mi.tok, mi.tok.Template(), docs, o.Question)
	return naiveResult{docsPerSec: rate, tokensPerSec: tokRate, seen: seen, docs: len(docs)}, err
}

// tokenizerRate encodes the contexts on one goroutine, repeating the
// corpus until at least a second has passed so the figure is stable.
func tokenizerRate(tok *tokenizer.Tokenizer, docs []benchDoc) (float64, int) {
	n := 0
	start := time.Now()
	for time.Since(start) < time.Second {
		for _, d := range docs {
			n += tok.Encode(d.Context).Len()
		}
	}
	return float64(n) / time.Since(start).Seconds(), n
}

// naive mimics the usual script: one document at a time, batch of one,
// context truncated so the pair fits 512 tokens, answer decoded.
func naive(rep scheduler.Replica, tok *tokenizer.Tokenizer, tpl qa.Template, docs []benchDoc, question string) (rate, tokRate, seen float64, err error) {
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 512, 0
	var all, kept, fed int
	start := time.Now()
	for _, d := range docs {
		q, ctx := tok.Encode(question), tok.Encode(d.Context)
		all += ctx.Len()
		kept += min(ctx.Len(), 512-q.Len()-tpl.Added())
		if keep := 512 - q.Len() - tpl.Added(); ctx.Len() > keep {
			ctx = qa.Tokens{IDs: ctx.IDs[:keep], Offsets: ctx.Offsets[:keep], Words: ctx.Words[:keep]}
		}
		ws, err := qa.Windows(q, ctx, tpl, s)
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
		res, err := qa.DecodeWindow(w, ctx, tpl, l.Start, l.End, s)
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
