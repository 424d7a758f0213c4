package status

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
)

const statusHelp = `Usage: qa-shard status [--json] [--verify] OUTPUT...

Says where a run stands, one line per rank and a total line, from its
journals and lock files, without disturbing a job that is writing them (no
lock is taken; safe to run every minute from cron). OUTPUT is the --output
of the run (answers.jsonl: every rank of a split run is found beside it as
answers.rank-RRRRR-of-WWWWW.jsonl), a rank's file, journal or lock, or a glob.

A rank is: complete; running (here: its lock is held; on another host: as
its lock file says, not checkable from here); stopped (resumable: rerun the
same command with --resume); missing (no journal); corrupt (its journal
unreadable, or its outputs not what the journal vouches for: lengths and
parts; --verify reads them against its digests too); or mismatched (run
with another input, model, settings or questions than the other ranks of
its run, or of another world size: merge refuses it). Its figures
are those of its last checkpoint, whose age each line gives: a running
rank has done up to its --checkpoint-interval more.

Exit status: 0 every rank complete; 75 some rank not complete yet (running
or stopped: wait, or rerun with --resume); 2 a rank missing, corrupt or
mismatched, or nothing found.`

// Run is `qa-shard status`: it prints where the runs of its arguments
// stand.
func Run(args []string) error {
	fs := pflag.NewFlagSet("qa-shard status", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON object per rank, then one for the total")
	verify := fs.Bool("verify", false, "read the outputs too: every answer record, and the answers and logits against the journal's digests")
	if err := cli.Parse(fs, args, statusHelp); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name the run's --output (or its rank files, or a glob): qa-shard status answers.jsonl", cli.ErrUsage)
	}
	all, err := collect(fs.Args(), *verify)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(os.Stdout, all); err != nil {
			return err
		}
	} else {
		writeTable(os.Stdout, all, time.Now())
	}
	return outcome(all)
}
