// Command gencorpus writes a deterministic synthetic JSONL corpus: company
// profiles of mixed length with a few facts (founder, founding year and
// city, products, head count, headquarters) in filler prose that mentions
// other cities as distractors. It feeds the demo, the benchmark, the
// evaluation and the training of the demo model.
//
// With -gold it also writes the gold answers, one JSON line per (document,
// question): the answer text, its code-point offsets in the context (as
// Hugging Face reports them) and the index of its first token in the
// tokenized context, which tells whether a truncating reader could see it.
// -tokenizer is a tokenizer.json or a model folder, read as qa-shard reads
// it (a folder without tokenizer.json, such as a Japanese BERT's vocab.txt
// and tokenizer_config.json, included).
//
//	go run ./tools/gencorpus -n 200 -seed 11 -out docs.jsonl \
//	    -gold gold.jsonl -tokenizer build/models/demo/tokenizer.json -questions-out questions.txt
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

type options struct {
	n, minWords, maxWords      int
	seed                       uint64
	lengths                    string
	out, gold, tokenizer, qout string
	lang                       string
	questions                  []question
}

func main() {
	var o options
	var qspec string
	flag.IntVar(&o.n, "n", 300, "documents")
	flag.IntVar(&o.minWords, "min-words", 20, "shortest document in words")
	flag.IntVar(&o.maxWords, "max-words", 1500, "longest document in words")
	flag.StringVar(&o.lengths, "lengths", "skewed", "length distribution: skewed (many short documents, a long tail) or uniform")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	flag.StringVar(&o.out, "out", "-", "output file (- for standard output)")
	flag.StringVar(&o.gold, "gold", "", "also write the gold answers to this JSONL file (needs -tokenizer)")
	flag.StringVar(&o.tokenizer, "tokenizer", "", "tokenizer.json, or a model folder, that gives the gold answers' token positions")
	flag.StringVar(&o.lang, "lang", "en", "language of the documents and questions: en or ja")
	flag.StringVar(&qspec, "questions", "all", "questions of the gold answers: all, or some of "+kinds())
	flag.StringVar(&o.qout, "questions-out", "", "also write the questions, one per line (for qa-shard --questions-file)")
	flag.Parse()
	err := check(&o, qspec)
	if err == nil {
		err = write(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func check(o *options, qspec string) error {
	var err error
	if o.questions, err = selectQuestions(qspec, o.lang); err != nil {
		return err
	}
	switch {
	case flag.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", flag.Arg(0))
	case o.minWords < 1 || o.maxWords < o.minWords:
		return errors.New("need 1 <= -min-words <= -max-words")
	case o.lengths != "skewed" && o.lengths != "uniform":
		return fmt.Errorf("-lengths %q: want skewed or uniform", o.lengths)
	case o.gold != "" && o.tokenizer == "":
		return errors.New("-gold needs -tokenizer (a model directory or its tokenizer.json) for the answers' token positions")
	}
	return nil
}

func write(o options) error {
	f := os.Stdout
	if o.out != "-" {
		var err error
		if f, err = os.Create(o.out); err != nil {
			return err
		}
		defer f.Close()
	}
	var gold *goldWriter
	if o.gold != "" {
		var err error
		if gold, err = newGoldWriter(o.gold, o.tokenizer, o.questions); err != nil {
			return err
		}
		defer gold.close()
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	lang, ok := languages[o.lang]
	if !ok {
		return fmt.Errorf("-lang %q: want en or ja", o.lang)
	}
	r := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	for i := range o.n {
		x := skewed(r)
		if o.lengths == "uniform" {
			x = r.Float64()
		}
		words := o.minWords + int(float64(o.maxWords-o.minWords)*x)
		id := fmt.Sprintf("doc-%05d", i)
		text, facts := lang.document(r, words)
		doc := struct {
			ID      string `json:"id"`
			Context string `json:"context"`
		}{id, text}
		if err := enc.Encode(doc); err != nil {
			return err
		}
		if gold != nil {
			if err := gold.add(id, text, facts); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if f != os.Stdout {
		if err := f.Close(); err != nil {
			return err
		}
	}
	if gold != nil {
		if err := gold.close(); err != nil {
			return err
		}
	}
	if o.qout != "" {
		return writeQuestions(o.qout, o.questions)
	}
	return nil
}

func writeQuestions(path string, qs []question) error {
	var b []byte
	for _, q := range qs {
		b = append(b, q.text+"\n"...)
	}
	return os.WriteFile(path, b, 0o644)
}
