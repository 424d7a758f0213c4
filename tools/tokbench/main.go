// Command tokbench times qa-shard's tokenizer on the contexts of a JSONL
// corpus, on one core, the way tokenizer/testdata/bench.mjs times Hugging
// Face's (npm tokenizers) on the same file, so that make bench-tokenizers
// can put the two side by side. For example:
//
//	go run ./tools/tokbench -tokenizer build/tokenizers/roberta/tokenizer.json -input docs.jsonl
//
// With -model DIR it reads a model folder as qa-shard run does (a
// converted or MeCab Japanese BERT tokenizer; tools/jagolden/bench.py is
// the Python reference for the latter).
//
// It prints one JSON line: tokens encoded, seconds, tokens per second.
// With -load DIR it times reading a model folder's tokenizer instead (a
// conversion of slow files, or tokenizer.json), for the load table.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tokbench:", err)
		os.Exit(1)
	}
}

func run() error {
	tokPath := flag.String("tokenizer", "", "tokenizer.json")
	modelDir := flag.String("model", "", "model folder, read as qa-shard run reads it (instead of -tokenizer)")
	input := flag.String("input", "", "JSONL corpus with a context field")
	rounds := flag.Int("rounds", 3, "passes over the corpus (the first is a warm-up, not timed)")
	load := flag.String("load", "", "time reading this model folder's tokenizer instead (tokenizer.json or a conversion)")
	reps := flag.Int("reps", 5, "-load: repetitions")
	showISA := flag.Bool("isa", false, "print the CPU's vector extensions and exit")
	flag.Parse()
	if *showISA {
		fmt.Println(cpuName())
		return nil
	}
	if *load != "" {
		runtime.GOMAXPROCS(1)
		return timeLoad(*load, max(*reps, 1))
	}
	if (*tokPath == "") == (*modelDir == "") || *input == "" || *rounds < 2 {
		flag.Usage()
		return fmt.Errorf("need -tokenizer or -model, -input and -rounds of 2 or more")
	}
	runtime.GOMAXPROCS(1)
	var tok *tokenizer.Tokenizer
	var err error
	if *modelDir != "" {
		tok, _, err = modeldir.Open(*modelDir)
	} else {
		tok, err = tokenizer.Load(*tokPath)
	}
	if err != nil {
		return err
	}
	texts, err := contexts(*input)
	if err != nil {
		return err
	}
	var tokens int
	var elapsed time.Duration
	for r := range *rounds {
		start := time.Now()
		n := 0
		for _, t := range texts {
			n += tok.Encode(t).Len()
		}
		if r > 0 {
			tokens += n
			elapsed += time.Since(start)
		}
	}
	s := elapsed.Seconds()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"tokens": tokens, "seconds": s, "tokens_per_s": float64(tokens) / s})
}

func contexts(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var d struct {
			Context string `json:"context"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, d.Context)
	}
	return out, sc.Err()
}
