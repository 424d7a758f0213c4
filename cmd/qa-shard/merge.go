package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"qa-shard/merge"
)

// mergeCmd combines the outputs of the ranks of a split run into the file
// a single process would have written.
func mergeCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard merge", pflag.ContinueOnError)
	output := fs.String("output", "", "merged answers file")
	lg := fs.String("logits", "", "also merge the ranks' logits folders (<this>.rank-RRRRR-of-WWWWW) into this folder")
	overwrite := fs.Bool("overwrite", false, "replace an existing merged output")
	help := "Usage: qa-shard merge --output FILE [--logits DIR] RANK_FILES...\n\nRANK_FILES are the answers.rank-RRRRR-of-WWWWW.jsonl files of one run, in any order."
	if err := parseFlags(fs, args, help); err != nil {
		return err
	}
	if *output == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: --output FILE and at least one rank file are required (see qa-shard merge --help)", errUsage)
	}
	res, err := merge.Files(*output, *lg, *overwrite, fs.Args())
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "qa-shard merge: %d ranks, documents 0-%d, written to %s\n", res.Ranks, res.Documents-1, *output)
	if *lg != "" {
		fmt.Fprintf(os.Stderr, "qa-shard merge: %d logits parts in %s\n", res.LogitsParts, filepath.Clean(*lg))
	}
	return nil
}
