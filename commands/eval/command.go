// Package eval is `qa-shard eval`: it scores answers files against gold
// answers with package evaluate and prints the table side by side.
package eval

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"qa-shard/evaluate"
	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
)

const help = `Usage: qa-shard eval --gold GOLD [--json] [LABEL=]ANSWERS...

Scores answers files (any format qa-shard writes, or tools/naiveqa's JSONL)
against gold answers, as SQuAD's official evaluate-v2.0.py does: exact
match and F1 after its normalisation (lower case, punctuation, articles,
whitespace), the best over a question's gold answers, one row per file,
side by side on standard output. GOLD is told apart by its content:

  a SQuAD v1.1 or v2.0 JSON dataset (dev-v2.0.json): answers are matched
    by question id (the question_id qa-shard keeps when --input reads the
    same dataset, or the record's id);
  Hugging Face datasets' columns (id, question, answers.text, ...; squad,
    squad_v2) as JSON lines or Parquet: matched by id likewise;
  tools/gencorpus --gold lines (id, question, answer, token): matched by
    (document id, question).

Where some question has no answer (SQuAD 2.0), the table adds the
questions with and without one (HasAns, NoAns) and the best no-answer
thresholds over each answer's null_logit - span_logit. Where the gold
gives each answer's token depth (gencorpus), the scores are also split at
--split tokens (within, beyond); other gold has character offsets only,
and a line says so. A question without an answer record scores 0 and is
counted as missing (the official script needs one for every question).
--json prints one object per file with the official script's keys.

  qa-shard eval --gold dev-v2.0.json answers.jsonl
  qa-shard eval --gold gold.jsonl qa-shard=answers.jsonl naive=naive.jsonl`

// request is what `qa-shard eval` was asked.
type request struct {
	Gold    string
	Answers []string // LABEL=FILE or FILE
	Split   int
	JSON    bool
	// LogFormat and LogLevel: the table goes to standard output; standard
	// error has only the error line.
	LogFormat, LogLevel string
}

// parse reads the eval subcommand's flags (pflag.ErrHelp for --help).
func parse(args []string) (request, error) {
	var r request
	fs := pflag.NewFlagSet("qa-shard eval", pflag.ContinueOnError)
	fs.StringVar(&r.Gold, "gold", "", "gold answers: SQuAD JSON, Hugging Face datasets' columns (JSONL or Parquet), or tools/gencorpus --gold lines")
	fs.IntVar(&r.Split, "split", 512, "token depth that splits the table where the gold gives token positions: answers starting within it, and beyond")
	fs.BoolVar(&r.JSON, "json", false, "print one JSON object per answers file with the official script's keys instead of the table")
	cli.AddLogFlags(fs, &r.LogFormat, &r.LogLevel)
	if err := cli.Parse(fs, args, help); err != nil {
		return r, err
	}
	r.Answers = fs.Args()
	if r.Gold == "" || len(r.Answers) == 0 || r.Split < 1 {
		return r, fmt.Errorf("%w: pass --gold FILE, one or more answers files (LABEL=FILE or FILE), and a --split of at least 1 (see qa-shard eval --help)", cli.ErrUsage)
	}
	return r, nil
}

// Run is `qa-shard eval`: it prints the evaluation table (the scoring is
// package evaluate's).
func Run(args []string) error {
	r, err := parse(args)
	if err != nil {
		return err
	}
	if _, err := logs.New(r.LogFormat, r.LogLevel); err != nil {
		return err
	}
	g, rows, err := evaluate.Files(r.Gold, r.Answers, r.Split)
	if err != nil {
		return err
	}
	if r.JSON {
		return evaluate.WriteJSON(os.Stdout, rows)
	}
	fmt.Printf("gold: %s\n", r.Gold)
	return evaluate.WriteTable(os.Stdout, g, rows)
}
