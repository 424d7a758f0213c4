package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/tokenview"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

const tokenizeHelp = `Usage: qa-shard tokenize --model DIR [--question Q] [--json] TEXT...

Shows how qa-shard reads a model folder's tokenizer, before a long run:
where it came from (tokenizer.json as written, or converted from the slow
tokenizer's files), its components, its special tokens, and each TEXT's
tokens with their ids and character offsets (code points into TEXT, as the
answers' start and end count them). With --question, each TEXT is a context
and the first window the model would see is shown instead: the question
and the context framed by the pair template, with type ids. Nothing is
guessed from the folder's name; a folder qa-shard refuses exits 2 with the
reason, as a run would.`

// tokenizeCmd prints how a model folder's tokenizer reads the texts given.
func tokenizeCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard tokenize", pflag.ContinueOnError)
	dir := fs.String("model", "", "model folder (tokenizer.json, or the slow tokenizer's files)")
	question := fs.String("question", "", "pair each TEXT with this question and show the first window")
	asJSON := fs.Bool("json", false, "one JSON object per token (after one describing the tokenizer)")
	mecabLib := fs.String("mecab-lib", "", "libmecab, for a MeCab Japanese BERT (default $QA_SHARD_MECAB_LIB, else libmecab.so.2)")
	mecabDicdir := fs.String("mecab-dicdir", "", "MeCab dictionary folder, instead of searching for the one the model names (default $QA_SHARD_MECAB_DICDIR)")
	if err := cli.Parse(fs, args, tokenizeHelp); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: pass --model DIR and at least one text: qa-shard tokenize --model DIR \"some text\"", errUsage)
	}
	tok, origin, err := modeldir.OpenWith(*dir, mecabOptions(*mecabLib, *mecabDicdir))
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	info := tokenview.Describe(tok, origin)
	var rows []tokenview.Row
	for i, text := range fs.Args() {
		r, err := tokenview.Rows(tok, i, text, *question)
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		return tokenview.WriteJSON(os.Stdout, info, rows)
	}
	tokenview.WriteTable(os.Stdout, info, rows, fs.Args())
	return nil
}

// mecabOptions are the MeCab flags over their environment variables.
func mecabOptions(lib, dicdir string) modeldir.Options {
	o := modeldir.EnvOptions()
	if lib != "" {
		o.MecabLib = lib
	}
	if dicdir != "" {
		o.MecabDicdir = dicdir
	}
	return o
}
