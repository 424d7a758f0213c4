// Command naiveqa answers like the typical script qa-shard replaces: one
// (document, question) at a time, batch of one, the pair truncated to the
// model's first 512 tokens (package baseline). It writes answer records as
// qa-shard does, so `qa-shard eval` can score both side by side:
//
//	go run ./tools/naiveqa -model build/models/demo -input docs.jsonl \
//	    -questions-file questions.txt -output naive.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"qa-shard/internal/record"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/tools/naiveqa/baseline"
	"qa-shard/worker"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "naiveqa:", err)
		os.Exit(1)
	}
}

type answerLine struct {
	ID       json.RawMessage `json:"id"`
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Score    float64         `json:"score"`
	Start    int             `json:"start"`
	End      int             `json:"end"`
}

func run() error {
	modelDir := flag.String("model", "", "model directory (optimum layout)")
	input := flag.String("input", "", "JSONL corpus: {\"id\", \"context\"} per line")
	qfile := flag.String("questions-file", "", "questions, one per line, asked of every document")
	output := flag.String("output", "", "answer records, one JSON line per (document, question)")
	maxLen := flag.Int("max-len", 512, "tokens the script feeds the model: question, context and specials")
	threads := flag.Int("threads", 0, "intra-op threads (0: ONNX Runtime's choice)")
	ortLib := flag.String("ort-lib", "", "ONNX Runtime library (default $"+worker.EnvORTLib+")")
	flag.Parse()
	if *modelDir == "" || *input == "" || *qfile == "" || *output == "" || flag.NArg() > 0 {
		flag.Usage()
		return errors.New("need -model, -input, -questions-file and -output")
	}
	questions, err := record.ReadQuestionsFile(*qfile)
	if err != nil {
		return err
	}
	if err := worker.Init(*ortLib); err != nil {
		return err
	}
	m, err := worker.OpenModel(*modelDir)
	if err != nil {
		return err
	}
	rep, err := worker.NewReplica(m, worker.ReplicaOptions{Name: "cpu", Provider: worker.ProviderCPU, Threads: *threads})
	if err != nil {
		return err
	}
	defer rep.Close()
	tok, err := tokenizer.Load(m.TokenizerPath)
	if err != nil {
		return err
	}
	reader := baseline.Truncating{Model: rep, Tok: tok, Template: tok.Template(), MaxLen: *maxLen, Settings: qa.DefaultSettings()}

	in, err := os.Open(*input)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(*output)
	if err != nil {
		return err
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	start, n, kept, total := time.Now(), 0, 0, 0
	for line := 1; sc.Scan(); line++ {
		var doc struct {
			ID      json.RawMessage `json:"id"`
			Context string          `json:"context"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			return fmt.Errorf("%s line %d: %w", *input, line, err)
		}
		for _, q := range questions {
			res, err := reader.Answer(context.Background(), q, doc.Context)
			if err != nil {
				return fmt.Errorf("%s line %d: %w", *input, line, err)
			}
			a := res.Answer
			if err := enc.Encode(answerLine{ID: doc.ID, Question: q, Answer: a.Text, Score: a.Score, Start: a.Start, End: a.End}); err != nil {
				return err
			}
			n++
			kept += res.Kept
			total += res.Total
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "naiveqa: %d answers in %s; the model saw %.1f%% of the context tokens\n",
		n, time.Since(start).Round(time.Millisecond), 100*float64(kept)/float64(max(total, 1)))
	return out.Close()
}
