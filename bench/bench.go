// Package bench measures qa-shard: the pipeline against the raw model on the
// same batch shapes, the tokenizer and a naive loop (Run), and pull-based
// scheduling against a static split on simulated devices (Scheduling).
package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"qa-shard/fleet"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/worker"
	"qa-shard/worker/tokenizer"
)

// Options size the benchmark.
type Options struct {
	Model, Input, Question string
	Devices, Provider      string // replicas, as for a run
	Threads                int    // intra-op threads per replica; 0: cores / replicas
	MaxBatchTokens         int
	NaiveDocs              int // documents for the naive baseline
}

// Run measures, in one process and one run, the pipeline against the raw
// model on the same batch shapes, the tokenizer, and a naive
// one-document-at-a-time loop, and prints the ratios to w. ONNX Runtime
// must be initialised (worker.Init).
func Run(ctx context.Context, w io.Writer, o Options) error {
	devices, maxBatch, modelDir, question, naiveDocs := o.Devices, o.MaxBatchTokens, o.Model, o.Question, o.NaiveDocs
	docs, err := readCorpus(o.Input)
	if err != nil {
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
	fl, err := fleet.Start(ctx, fleet.Options{Devices: devices, Threads: o.Threads, Provider: o.Provider,
		MaxBatchTokens: maxBatch, MaxSeqLen: qa.DefaultSettings().MaxSeqLen, TRTCacheDir: "trt-cache", SampleInterval: time.Second}, m)
	if err != nil {
		return err
	}
	defer fl.Close()
	reps := fl.Replicas
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
	cfg := scheduler.Config{Settings: qa.DefaultSettings(), Special: sp, PadID: pad, MaxBatchTokens: maxBatch, MaxBatchRows: fleet.BatchRows(o.Provider, maxBatch),
		SingleWindowBatches: m.QuantizedActivations}
	sum, err := scheduler.Run(ctx, cfg, shard.NewReader(in, shard.Options{Questions: []string{question}}), tok, rec, shard.NewWriter(io.Discard), nil)
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
		return nil, fmt.Errorf("cannot open --input: %w", err)
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
