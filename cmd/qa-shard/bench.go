package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/worker"
	"qa-shard/worker/tokenizer"
)

// benchCmd measures, in one process and one run, the pipeline against the
// raw model on the same batch shapes, the tokenizer, and a naive
// one-document-at-a-time loop, and prints the ratios.
func benchCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard bench", flag.ContinueOnError)
	model := fs.String("model", "", "model directory")
	input := fs.String("input", "", "JSONL corpus")
	question := fs.String("question", "Who founded the company?", "question asked of every document")
	devices := fs.String("devices", "cpu", "replicas, as for run")
	threads := fs.Int("threads", 0, "intra-op threads per replica (0: cores / replicas)")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library (default $QA_SHARD_ORT_LIB)")
	maxBatch := fs.Int("max-batch-tokens", 8192, "token budget of one batch")
	naiveDocs := fs.Int("naive-docs", 8, "documents for the naive baseline")
	provider := fs.String("provider", "", "execution provider on GPUs, as for run")
	scheduling := fs.Bool("scheduling", false, "instead: the scheduling table on simulated devices (pull vs static split)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *scheduling {
		if err := benchScheduling(os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "qa-shard bench: %v\n", err)
			return exitInternal
		}
		return exitOK
	}
	o := &options{devices: *devices, threads: *threads, provider: *provider, maxBatchTokens: *maxBatch,
		settings: qa.DefaultSettings(), trtCacheDir: "trt-cache", gpuSampleInterval: time.Second}
	if err := bench(o, *model, *input, *question, *ortLib, *naiveDocs); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard bench: %v\n", err)
		return exitCode(err)
	}
	return exitOK
}

func bench(o *options, modelDir, input, question, ortLib string, naiveDocs int) error {
	devices, maxBatch := o.devices, o.maxBatchTokens
	docs, err := readCorpus(input)
	if err != nil {
		return err
	}
	if err := worker.Init(defaultORTLib(ortLib)); err != nil {
		return err
	}
	m, err := worker.OpenModel(modelDir)
	if err != nil {
		return err
	}
	tok, err := tokenizer.Load(m.TokenizerPath)
	if err != nil {
		return err
	}
	fl, err := startFleet(context.Background(), o, m, nopLogger())
	if err != nil {
		return err
	}
	defer fl.close()
	reps := fl.replicas
	cls, sep, pad := tok.SpecialIDs()
	sp := qa.Special{CLS: cls, SEP: sep}

	tokRate, nTokens := tokenizerRate(tok, docs)

	rec := make([]scheduler.Replica, len(reps))
	shapes := &shapeLog{}
	for i, r := range reps {
		rec[i] = recorder{r, shapes}
	}
	in := strings.NewReader(strings.Join(jsonLines(docs), "\n"))
	cpu0 := cpuTime()
	cfg := scheduler.Config{Settings: qa.DefaultSettings(), Special: sp, PadID: pad, MaxBatchTokens: maxBatch, MaxBatchRows: batchRows(o)}
	sum, err := scheduler.Run(context.Background(), cfg, shard.NewReader(in, shard.Options{Questions: []string{question}}), tok, rec, shard.NewWriter(io.Discard), nil)
	if err != nil {
		return fmt.Errorf("pipeline run: %w", err)
	}
	load1 := loadAvg()
	pre := prebuilt(shapes.all())
	cpu1 := cpuTime()
	ceilWall, err := replay(reps, pre)
	if err != nil {
		return fmt.Errorf("raw model replay: %w", err)
	}
	cpu2, load2 := cpuTime(), loadAvg()
	naiveRate, naiveTokRate, seen, err := naive(reps[0], tok, sp, docs[:min(naiveDocs, len(docs))], question)
	if err != nil {
		return fmt.Errorf("naive baseline: %w", err)
	}
	e2eWin := float64(sum.Windows) / sum.Wall.Seconds()
	ceilWin := float64(sum.Windows) / ceilWall.Seconds()
	w := os.Stdout
	fmt.Fprintf(w, "qa-shard bench: %d documents, %d windows, %d replicas (%s), model %s\n", sum.Documents, sum.Windows, len(reps), devices, modelDir)
	fmt.Fprintf(w, "| measure | value |\n|---|---|\n")
	fmt.Fprintf(w, "| end-to-end documents/s | %.3f |\n", sum.DocsPerSecond())
	fmt.Fprintf(w, "| end-to-end windows/s | %.2f |\n", e2eWin)
	fmt.Fprintf(w, "| raw model windows/s (same sessions, same batch shapes, pre-built) | %.2f |\n", ceilWin)
	fmt.Fprintf(w, "| pipeline efficiency (end-to-end / raw, wall clock) | %.3f |\n", e2eWin/ceilWin)
	fmt.Fprintf(w, "| pipeline efficiency (raw / end-to-end, process CPU time) | %.3f |\n", (cpu2-cpu1).Seconds()/(cpu1-cpu0).Seconds())
	fmt.Fprintf(w, "| load average during end-to-end / raw (other processes skew wall clock) | %s / %s |\n", load1, load2)
	fmt.Fprintf(w, "| padding waste | %.2f%% |\n", sum.PaddingPercent())
	fmt.Fprintf(w, "| batches / mean rows | %d / %.1f |\n", sum.Batches, float64(sum.Windows)/float64(max(sum.Batches, 1)))
	fmt.Fprintf(w, "| tokenizer tokens/s (one core, %d tokens) | %.0f |\n", nTokens, tokRate)
	fmt.Fprintf(w, "| naive loop documents/s (batch 1, truncated at 512, %d docs) | %.3f |\n", min(naiveDocs, len(docs)), naiveRate)
	fmt.Fprintf(w, "| naive loop: share of context tokens it reads (the rest is truncated) | %.1f%% |\n", 100*seen)
	fmt.Fprintf(w, "| pipeline / naive documents/s (the naive loop skips most of each long document) | %.2f |\n", sum.DocsPerSecond()/naiveRate)
	e2eTok := float64(sum.Tokens) / sum.Wall.Seconds()
	fmt.Fprintf(w, "| model tokens/s: pipeline / naive (work done per second) | %.0f / %.0f = %.2f |\n", e2eTok, naiveTokRate, e2eTok/naiveTokRate)
	fmt.Fprintf(w, "| peak RSS | %s |\n", peakRSS())
	return nil
}

type benchDoc struct {
	ID      string `json:"id"`
	Context string `json:"context"`
}

func readCorpus(path string) ([]benchDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open --input: %v", errUsage, err)
	}
	defer f.Close()
	var docs []benchDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var d benchDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(docs)+1, err)
		}
		docs = append(docs, d)
	}
	return docs, sc.Err()
}

func jsonLines(docs []benchDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		b, _ := json.Marshal(d)
		out[i] = string(b)
	}
	return out
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

type shapeLog struct {
	mu     sync.Mutex
	shapes [][2]int
}

func (s *shapeLog) add(rows, l int) {
	s.mu.Lock()
	s.shapes = append(s.shapes, [2]int{rows, l})
	s.mu.Unlock()
}
func (s *shapeLog) all() [][2]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][2]int(nil), s.shapes...)
}

// recorder notes the shape of every batch the pipeline runs.
type recorder struct {
	scheduler.Replica
	log *shapeLog
}

func (r recorder) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	r.log.add(b.Rows, b.Len)
	return r.Replica.Run(ctx, b)
}

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
