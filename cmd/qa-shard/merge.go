package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"qa-shard/filelock"
	"qa-shard/logs"
	"qa-shard/merge"
	qaoutput "qa-shard/output"
)

// mergeCmd combines the outputs of the ranks of a split run into the file
// a single process would have written.
func mergeCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard merge", pflag.ContinueOnError)
	output := fs.String("output", "", "merged answers file")
	lg := fs.String("logits", "", "also merge the ranks' logits folders (<this>.rank-RRRRR-of-WWWWW) into this folder")
	overwrite := fs.Bool("overwrite", false, "replace an existing merged output")
	var logFormat, logLevel string
	addLogFlags(fs, &logFormat, &logLevel)
	help := "Usage: qa-shard merge --output FILE [--logits DIR] RANK_FILES...\n\nRANK_FILES are the answers.rank-RRRRR-of-WWWWW.jsonl files (or .jsonl.gz, .jsonl.zst, .parquet folders) of one run, in any order."
	if err := parseFlags(fs, args, help); err != nil {
		return err
	}
	if *output == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: --output FILE and at least one rank file are required (see qa-shard merge --help)", errUsage)
	}
	locks, err := lockMerge(*output, *lg, fs.Args())
	defer locks.Release()
	if err != nil {
		return err
	}
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	res, err := merge.Files(*output, *lg, *overwrite, fs.Args())
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("merged %d ranks, %d documents, into %s", res.Ranks, res.Documents, *output), zap.Int("ranks", res.Ranks),
		zap.Int64("documents", res.Documents), zap.String("output", *output), zap.Int("answer_parts", res.AnswerParts),
		zap.String("logits", *lg), zap.Int("logits_parts", res.LogitsParts))
	return nil
}

// lockMerge makes the merged output this process's alone, and makes sure
// no rank is still writing (or is restarted onto) its file while it is
// read. A rank file that cannot be locked for another reason than a holder
// (a missing folder) is left to merge.Files to report.
func lockMerge(output, lg string, ranks []string) (filelock.Set, error) {
	command := strings.Join(os.Args, " ")
	locks, err := qaoutput.Claim(output, lg, command, true)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range ranks {
		if seen[filepath.Clean(r)] {
			continue // merge.Files reports a rank given twice
		}
		seen[filepath.Clean(r)] = true
		l, err := filelock.Acquire(r, command)
		switch {
		case errors.Is(err, filelock.ErrHeld):
			return locks, fmt.Errorf("%w (is rank %s still running?)", err, r)
		case err == nil:
			locks = append(locks, l)
		}
	}
	return locks, nil
}
