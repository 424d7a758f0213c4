package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/record"
	"qa-shard/job"
	"qa-shard/qa"
	"qa-shard/scheduler"
)

// oneOptions pin one configuration for One.
type oneOptions struct {
	options
	MaxBatchTokens    int // the budget of every batch (> 0)
	Threads           int // intra-op threads per session; 0: the fleet's first candidate
	ReplicasPerDevice int // sessions per device; 0: the fleet's first candidate
}

// one measures one pinned configuration in detail: the pipeline against
// the raw model on the same sessions and batch shapes (pre-built, so the
// gap is the pipeline's own cost), the tokenizer, and the naive loop. The
// layout is the fleet's first candidate unless the options pin one.
func one(ctx context.Context, w io.Writer, o oneOptions) error {
	docs, err := readCorpus(o.Input)
	if err != nil {
		return err
	}
	ms := &models{o: o.options, by: map[string]*modelInfo{}}
	mi, err := ms.get(o.Model)
	if err != nil {
		return err
	}
	fl, err := job.StartFleet(ctx, job.Replicas{Simulate: Simulated, MaxSeqLen: qa.DefaultSettings().MaxSeqLen,
		Devices: job.DeviceOptions{Devices: o.Devices, Provider: o.Provider, Threads: o.Threads, ReplicasPerDevice: o.ReplicasPerDevice,
			TRTCacheDir: "trt-cache", GPUSampleInterval: time.Second},
		Pipeline: job.PipelineOptions{MaxBatchTokens: o.MaxBatchTokens}}, mi.m)
	if err != nil {
		return err
	}
	defer fl.Close()
	layout := fl.Classes[0].Layouts[0]
	if err := fl.Open(layout.Replicas); err != nil {
		return err
	}
	var reps []scheduler.Replica
	for _, r := range fl.Replicas {
		if slices.Contains(layout.Replicas, r.Name()) {
			reps = append(reps, r)
		}
	}
	sp := mi.tok.Template()
	tokRate, nTokens := tokenizerRate(mi.tok, docs)
	rec := make([]scheduler.Replica, len(reps))
	shapes := &shapeLog{}
	for i, r := range reps {
		rec[i] = recorder{r, shapes}
	}
	in := strings.NewReader(strings.Join(jsonLines(docs), "\n"))
	cpu0 := cpuTime()
	cfg := job.SchedulerConfig(qa.DefaultSettings(), mi.tok, o.Provider, o.MaxBatchTokens, mi.m)
	sum, err := scheduler.Run(ctx, cfg, record.NewStream(in, record.Options{Questions: []string{o.Question}}), mi.tok, rec, record.NewWriter(io.Discard), nil)
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
	docs = docs[:min(max(1, o.NaiveDocs), len(docs))]
	naiveRate, naiveTokRate, seen, err := naive(reps[0], mi.tok, sp, docs, o.Question)
	if err != nil {
		return fmt.Errorf("naive baseline: %w", err)
	}
	e2eWin := float64(sum.Windows) / sum.Wall.Seconds()
	ceilWin := float64(sum.Windows) / ceilWall.Seconds()
	fmt.Fprintf(w, "qa-shard bench: %d documents, %d windows, %d replicas (%s, %s), model %s\n", sum.Documents, sum.Windows, len(reps), o.Devices, layout, o.Model)
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
	fmt.Fprintf(w, "| naive loop documents/s (batch 1, truncated at 512, %d docs) | %.3f |\n", len(docs), naiveRate)
	fmt.Fprintf(w, "| naive loop: share of context tokens it reads (the rest is truncated) | %.1f%% |\n", 100*seen)
	fmt.Fprintf(w, "| pipeline / naive documents/s (the naive loop skips most of each long document) | %.2f |\n", sum.DocsPerSecond()/naiveRate)
	e2eTok := float64(sum.Tokens) / sum.Wall.Seconds()
	fmt.Fprintf(w, "| model tokens/s: pipeline / naive (work done per second) | %.0f / %.0f = %.2f |\n", e2eTok, naiveTokRate, e2eTok/naiveTokRate)
	fmt.Fprintf(w, "| peak RSS | %s |\n", peakRSS())
	if fl.Summary != nil && o.Log != nil {
		for _, x := range fl.Summary() {
			o.Log.Info("gpu summary", zap.String("gpu", x.String())) // the GPU sampler over the run
		}
	}
	return nil
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
	return slices.Clone(s.shapes)
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
