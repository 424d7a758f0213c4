package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/evaluate"
)

// evalCmd scores answer files against gold answers (SQuAD EM and F1),
// overall and split by how deep in its document each gold answer starts,
// one row per file, side by side:
//
//	qa-shard eval --gold gold.jsonl qa-shard=answers.jsonl naive=naive.jsonl
func evalCmd(args []string) int { return evalTo(os.Stdout, os.Stderr, args) }

func evalTo(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("qa-shard eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gold := fs.String("gold", "", "gold answers, one JSON line per (document, question) with id, question, answer and token (tools/gencorpus -gold)")
	split := fs.Int("split", 512, "token depth that splits the table: answers starting within it, and beyond")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: qa-shard eval --gold GOLD.jsonl [LABEL=]ANSWERS.jsonl...\n\nSQuAD exact match and F1 of each answers file, overall and split by where the gold answer starts.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *gold == "" || fs.NArg() == 0 || *split < 1 {
		fmt.Fprintln(stderr, "qa-shard eval: need --gold FILE, a --split of at least 1, and one or more answers files (LABEL=FILE or FILE)")
		return exitUsage
	}
	g, err := evaluate.ReadGold(*gold)
	if err != nil {
		fmt.Fprintf(stderr, "qa-shard eval: %v\n", err)
		return exitUsage
	}
	var rows []evaluate.Row
	for _, arg := range fs.Args() {
		label, path, ok := strings.Cut(arg, "=")
		if !ok {
			label, path = strings.TrimSuffix(filepath.Base(arg), ".jsonl"), arg
		}
		a, err := evaluate.ReadAnswers(path)
		if err != nil {
			fmt.Fprintf(stderr, "qa-shard eval: %v\n", err)
			return exitUsage
		}
		rows = append(rows, evaluate.Row{Label: label, Report: evaluate.Evaluate(g, a, *split)})
	}
	fmt.Fprintf(stdout, "gold: %s\n", *gold)
	if err := evaluate.WriteTable(stdout, rows); err != nil {
		fmt.Fprintf(stderr, "qa-shard eval: %v\n", err)
		return exitInternal
	}
	return exitOK
}
