package tokenize

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

const help = `Usage: qa-shard tokenize --model DIR [--question Q] [--json] TEXT...

Shows how qa-shard reads a model folder's tokenizer, before a long run:
where it came from (tokenizer.json as written, or converted from the slow
tokenizer's files), its components, its special tokens, and each TEXT's
tokens with their ids and character offsets (code points into TEXT, as the
answers' start and end count them). With --question, each TEXT is a context
and the first window the model would see is shown instead: the question
and the context framed by the pair template, with type ids. Nothing is
guessed from the folder's name; a folder qa-shard refuses exits 2 with the
reason, as a run would.`

// request is what `qa-shard tokenize` was asked.
type request struct {
	Model    string
	Question string   // "": each text alone; else each text is a context paired with it
	Texts    []string // at least one
	JSON     bool
	Mecab    modeldir.Options // the MeCab flags over their environment variables
}

// parse reads the tokenize subcommand's flags (pflag.ErrHelp for --help).
func parse(args []string) (request, error) {
	var r request
	fs := pflag.NewFlagSet("qa-shard tokenize", pflag.ContinueOnError)
	fs.StringVar(&r.Model, "model", "", "model folder (tokenizer.json, or the slow tokenizer's files)")
	fs.StringVar(&r.Question, "question", "", "pair each TEXT with this question and show the first window")
	fs.BoolVar(&r.JSON, "json", false, "one JSON object per token (after one describing the tokenizer)")
	mecabLib := fs.String("mecab-lib", "", "libmecab, for a MeCab Japanese BERT (default $QA_SHARD_MECAB_LIB, else libmecab.so.2)")
	mecabDicdir := fs.String("mecab-dicdir", "", "MeCab dictionary folder, instead of searching for the one the model names (default $QA_SHARD_MECAB_DICDIR)")
	if err := cli.Parse(fs, args, help); err != nil {
		return r, err
	}
	if r.Model == "" || fs.NArg() == 0 {
		return r, fmt.Errorf("%w: pass --model DIR and at least one text: qa-shard tokenize --model DIR \"some text\"", cli.ErrUsage)
	}
	r.Texts, r.Mecab = fs.Args(), modeldir.FlagOptions(*mecabLib, *mecabDicdir)
	return r, nil
}

// Run is `qa-shard tokenize`: it prints how a model folder's tokenizer
// reads the texts given.
func Run(args []string) error {
	r, err := parse(args)
	if err != nil {
		return err
	}
	tok, origin, err := modeldir.OpenWith(r.Model, r.Mecab)
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	info := describe(tok, origin)
	var rows []row
	for i, text := range r.Texts {
		rs, err := tokenRows(tok, i, text, r.Question)
		if err != nil {
			return fmt.Errorf("%w: %w", cli.ErrUsage, err)
		}
		rows = append(rows, rs...)
	}
	if r.JSON {
		return writeJSON(os.Stdout, info, rows)
	}
	writeTable(os.Stdout, info, rows, r.Texts)
	return nil
}
