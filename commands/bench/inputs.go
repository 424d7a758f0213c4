package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/input"
	"qa-shard/internal/corpus"
	"qa-shard/internal/record"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/shard"
	"qa-shard/worker/sim"
)

// inputBench sizes the input-format benchmark: short documents (one window
// each) on fast simulated replicas, so the pipeline runs at thousands of
// documents per second and the cost of reading shows in the throughput.
type inputBench struct {
	docs, rounds, rowsPerGroup int
	replicas                   int
	rate                       float64 // simulated padded tokens/s per replica
}

func defaultInputBench() inputBench {
	return inputBench{docs: 10000, rounds: 3, rowsPerGroup: 2000, replicas: 4, rate: 1e5}
}

// inputFormats are the files the benchmark reads, the first the baseline.
var inputFormats = []string{"corpus.jsonl", "corpus.jsonl.gz", "corpus.jsonl.zst", "corpus.parquet"}

// inputs measures, in one run, the pipeline's throughput on simulated
// devices when the same corpus is read as plain JSONL, gzip or zstd JSONL,
// or Parquet, and prints a markdown table with the ratios to JSONL. The
// formats alternate within each round and the median round counts, so
// other load on the machine hits them alike.
func inputs(ctx context.Context, w io.Writer) error {
	return runInputBench(ctx, w, defaultInputBench())
}

func runInputBench(ctx context.Context, w io.Writer, p inputBench) error {
	dir, err := os.MkdirTemp("", "qa-shard-inputs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeInputCorpus(dir, p); err != nil {
		return err
	}
	load := loadAvg()
	rates := make([][]float64, len(inputFormats))
	cpus := make([][]float64, len(inputFormats))
	var docs int64
	for range p.rounds {
		for i, name := range inputFormats {
			cpu := cpuTime()
			sum, err := inputRun(ctx, filepath.Join(dir, name), p)
			if err != nil {
				return fmt.Errorf("input bench: %s: %w", name, err)
			}
			docs = sum.Documents
			rates[i] = append(rates[i], sum.DocsPerSecond())
			cpus[i] = append(cpus[i], (cpuTime()-cpu).Seconds()/float64(sum.Documents)*1e6)
		}
	}
	fmt.Fprintf(w, "\n### Reading each input format (%d documents, %d simulated replicas, median of %d rounds)\n\n", docs, p.replicas, p.rounds)
	fmt.Fprintln(w, "| input | size | documents/s | vs JSONL | CPU µs per document |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |")
	base := median(rates[0])
	for i, name := range inputFormats {
		st, _ := os.Stat(filepath.Join(dir, name))
		fmt.Fprintf(w, "| %s | %.1f MB | %.0f | %.3f | %.0f |\n", strings.TrimPrefix(name, "corpus"), float64(st.Size())/1e6, median(rates[i]), median(rates[i])/base, median(cpus[i]))
	}
	fmt.Fprintf(w, "\nload average before / after: %s / %s (other processes skew wall clock)\n", load, loadAvg())
	return nil
}

// inputRun reads one file through input.Reader into the scheduler.
func inputRun(ctx context.Context, path string, p inputBench) (scheduler.Summary, error) {
	files, err := input.Find([]string{path})
	if err != nil {
		return scheduler.Summary{}, err
	}
	plan, err := input.Split(files, shard.Rank{World: 1})
	if err != nil {
		return scheduler.Summary{}, err
	}
	opt := record.Options{Questions: []string{"who founded the company"}}
	if opt.Schema, err = input.Schema(plan.Files, opt, "auto"); err != nil {
		return scheduler.Summary{}, err
	}
	src, err := plan.Open(opt, nil, 0)
	if err != nil {
		return scheduler.Summary{}, err
	}
	defer src.Close()
	reps := make([]scheduler.Replica, p.replicas)
	for i := range reps {
		reps[i] = sim.New(sim.Options{Name: fmt.Sprintf("sim:%d", i), Index: i, Rate: p.rate, Speed: 1, Seed: 1})
	}
	cfg := scheduler.Config{Settings: qa.DefaultSettings(), Template: qa.BertTemplate(101, 102), Batching: scheduler.Batching{MaxBatchTokens: 4096}}
	sum, err := scheduler.Run(ctx, cfg, src, sim.WordTokenizer{}, reps, record.NewWriter(io.Discard), nil)
	if err == nil && sum.Documents != int64(p.docs) {
		err = fmt.Errorf("read %d documents of %d", sum.Documents, p.docs)
	}
	return sum, err
}

type inputDoc struct {
	ID      string `parquet:"id" json:"id"`
	Context string `parquet:"context" json:"context"`
	URL     string `parquet:"url" json:"url"`
}

// writeInputCorpus writes the same documents in every format.
func writeInputCorpus(dir string, p inputBench) error {
	rng := rand.New(rand.NewPCG(3, 7))
	words := strings.Fields("the company was founded in paris by ada lovelace and later moved to berlin where its headquarters stand today near the river with many engineers")
	docs := make([]inputDoc, p.docs)
	var text strings.Builder
	for i := range docs {
		ws := make([]string, 20+rng.IntN(100))
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		docs[i] = inputDoc{ID: fmt.Sprintf("doc-%06d", i), Context: strings.Join(ws, " "), URL: fmt.Sprintf("https://example.org/%d", i)}
		line, _ := json.Marshal(docs[i])
		text.Write(line)
		text.WriteByte('\n')
	}
	for _, name := range inputFormats {
		path := filepath.Join(dir, name)
		var err error
		if strings.HasSuffix(name, ".parquet") {
			err = corpus.WriteParquet(path, docs, p.rowsPerGroup)
		} else {
			err = corpus.WriteText(path, []byte(text.String()), 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
