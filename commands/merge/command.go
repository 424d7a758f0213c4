package merge

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
)

// Run is `qa-shard merge`: it combines the outputs of the ranks of a
// split run into the file a single process would have written.
func Run(args []string) error {
	fs := pflag.NewFlagSet("qa-shard merge", pflag.ContinueOnError)
	output := fs.String("output", "", "merged answers, in the format the name says: .jsonl, .jsonl.gz, .jsonl.zst or .parquet (converted when the ranks wrote another)")
	lg := fs.String("logits", "", "also merge the ranks' logits folders (found from their journals, whatever their names) into this new folder")
	overwrite := fs.Bool("overwrite", false, "replace an existing merged output (and logits folder) whole")
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel)
	help := "Usage: qa-shard merge --output FILE [--logits DIR] RANK_FILES...\n\nRANK_FILES are the answers.rank-RRRRR-of-WWWWW.jsonl files (or .jsonl.gz, .jsonl.zst, .parquet folders) of one run, in any order; a rank's journal or lock names its answers too, so a glob such as answers.rank-* works."
	if err := cli.Parse(fs, args, help); err != nil {
		return err
	}
	if *output == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: --output FILE and at least one rank file are required (see qa-shard merge --help)", cli.ErrUsage)
	}
	ranks := rankPaths(fs.Args())
	locks, err := lock(*output, *lg, ranks, strings.Join(os.Args, " "))
	defer locks.Release()
	if err != nil {
		return err
	}
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	res, err := mergeFiles(options{Output: *output, Logits: *lg, Overwrite: *overwrite, Ranks: ranks,
		Step: testStep()})
	if err != nil {
		return err
	}
	res.Log(log, *output, *lg)
	return nil
}
