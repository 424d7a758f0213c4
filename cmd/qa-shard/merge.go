package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/merge"
)

// mergeCmd combines the outputs of the ranks of a split run into the file
// a single process would have written.
func mergeCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard merge", flag.ContinueOnError)
	output := fs.String("output", "", "merged answers file")
	lg := fs.String("logits", "", "also merge the ranks' logits folders (<this>.rank-RRRRR-of-WWWWW) into this folder")
	overwrite := fs.Bool("overwrite", false, "replace an existing merged output")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: qa-shard merge --output FILE [--logits DIR] RANK_FILES...\n\nRANK_FILES are the answers.rank-RRRRR-of-WWWWW.jsonl files of one run, in any order.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *output == "" || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "qa-shard merge: --output FILE and at least one rank file are required")
		return exitUsage
	}
	res, err := merge.Files(*output, *lg, *overwrite, fs.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard merge: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(os.Stderr, "qa-shard merge: %d ranks, documents 0-%d, written to %s\n", res.Ranks, res.Documents-1, *output)
	if *lg != "" {
		fmt.Fprintf(os.Stderr, "qa-shard merge: %d logits parts in %s\n", res.LogitsParts, filepath.Clean(*lg))
	}
	return exitOK
}
