package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/evaluate"
	"qa-shard/internal/logs"
)

const evalHelp = `Usage: qa-shard eval --gold GOLD.jsonl [LABEL=]ANSWERS...

Scores answers files (any format qa-shard writes, or tools/naiveqa's JSONL)
against gold answers (tools/gencorpus --gold): SQuAD exact match and F1 with
the official normalisation, overall and split by where the gold answer
starts in its document (within the first --split tokens, or beyond), one
row per file, side by side on standard output. A question without an answer
record scores 0 and is counted as missing.

  qa-shard eval --gold gold.jsonl qa-shard=answers.jsonl naive=naive.jsonl`

// evalCmd prints the evaluation table; the scoring is package evaluate's.
func evalCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard eval", pflag.ContinueOnError)
	gold := fs.String("gold", "", "gold answers, one JSON line per (document, question) with id, question, answer and token")
	split := fs.Int("split", 512, "token depth that splits the table: answers starting within it, and beyond")
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel) // the table goes to standard output; standard error has only the error line
	if err := cli.Parse(fs, args, evalHelp); err != nil {
		return err
	}
	if *gold == "" || fs.NArg() == 0 || *split < 1 {
		return fmt.Errorf("%w: pass --gold FILE, one or more answers files (LABEL=FILE or FILE), and a --split of at least 1 (see qa-shard eval --help)", errUsage)
	}
	if _, err := logs.New(logFormat, logLevel); err != nil {
		return err
	}
	rows, err := evaluate.Files(*gold, fs.Args(), *split)
	if err != nil {
		return err
	}
	fmt.Printf("gold: %s\n", *gold)
	return evaluate.WriteTable(os.Stdout, rows)
}
