package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
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
	cfg := scheduler.Config{Settings: qa.DefaultSettings(), Special: sp, PadID: pad, MaxBatchTokens: maxBatch, MaxBatchRows: batchRows(o),
		SingleWindowBatches: m.QuantizedActivations}
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
