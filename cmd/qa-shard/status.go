package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/errkind"
	"qa-shard/internal/runstatus"
)

const statusHelp = `Usage: qa-shard status [--json] OUTPUT...

Says where a run stands, one line per rank and a total line, from its
journals and lock files, without disturbing a job that is writing them (no
lock is taken; safe to run every minute from cron). OUTPUT is the --output
of the run (answers.jsonl: every rank of a split run is found beside it as
answers.rank-RRRRR-of-WWWWW.jsonl), a rank's file, or a glob of them.

A rank is: complete; running (here: its lock is held; on another host: as
its lock file says, not checkable from here); stopped (resumable: rerun the
same command with --resume); missing (no journal); or corrupt.

Exit status: 0 every rank complete; 75 some rank not complete yet (running
or stopped: wait, or rerun with --resume); 2 a rank missing or corrupt, or
nothing found.`

// statusCmd prints where the runs of its arguments stand.
func statusCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard status", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON object per rank, then one for the total")
	if err := cli.Parse(fs, args, statusHelp); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name the run's --output (or its rank files, or a glob): qa-shard status answers.jsonl", errUsage)
	}
	var outputs []string
	for _, a := range fs.Args() {
		found, err := runstatus.Find(a)
		if err != nil {
			return err
		}
		outputs = append(outputs, found...)
	}
	slices.Sort(outputs)
	outputs = slices.Compact(outputs)
	if len(outputs) == 0 {
		return fmt.Errorf("%w: no run found at %s (no journal, no rank files)", errUsage, strings.Join(fs.Args(), " "))
	}
	now := time.Now()
	var all []runstatus.Rank
	for _, o := range outputs {
		all = append(all, runstatus.Read(o))
	}
	all = runstatus.AddMissing(all)
	if *asJSON {
		if err := writeStatusJSON(os.Stdout, all); err != nil {
			return err
		}
	} else {
		writeStatus(os.Stdout, all, now)
	}
	return statusOutcome(all)
}

func writeStatus(w io.Writer, all []runstatus.Rank, now time.Time) {
	count := map[string]int{}
	var docs, errs int64
	for _, s := range all {
		count[s.State]++
		docs += s.Documents
		errs += s.Errors
		line := fmt.Sprintf("rank %d/%d  %-9s  %s documents", s.Rank, s.World, s.State, thousands(s.Documents))
		if s.Percent != nil {
			line += fmt.Sprintf(" (%.1f%% of its input)", *s.Percent)
		}
		if s.Errors > 0 {
			line += fmt.Sprintf(", %s error records", thousands(s.Errors))
		}
		if !s.Checkpoint.IsZero() {
			line += fmt.Sprintf("  last checkpoint %s ago", now.Sub(s.Checkpoint).Round(time.Second))
		}
		switch {
		case s.State == "running" && s.Checked:
			line += fmt.Sprintf("  on %s, pid %d", s.Host, s.PID)
		case s.State == "running":
			line += fmt.Sprintf("  on %s, pid %d (per its lock file; not checkable from this host)", s.Host, s.PID)
		case s.State == "stopped":
			line += "  resumable: rerun the same command with --resume"
		}
		if s.Problem != "" {
			line += "  " + s.Problem
		}
		fmt.Fprintf(w, "%s  %s\n", line, s.Output)
	}
	var parts []string
	for _, k := range []string{"complete", "running", "stopped", "missing", "corrupt"} {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
		}
	}
	fmt.Fprintf(w, "total: %d of %d ranks complete (%s); %s documents, %s error records\n", count["complete"], len(all), strings.Join(parts, ", "), thousands(docs), thousands(errs))
}

func writeStatusJSON(w io.Writer, all []runstatus.Rank) error {
	enc := json.NewEncoder(w)
	total := struct {
		Total     bool           `json:"total"`
		Ranks     int            `json:"ranks"`
		States    map[string]int `json:"states"`
		Documents int64          `json:"documents"`
		Errors    int64          `json:"error_records"`
	}{Total: true, Ranks: len(all), States: map[string]int{}}
	for _, s := range all {
		if err := enc.Encode(s); err != nil {
			return err
		}
		total.States[s.State]++
		total.Documents += s.Documents
		total.Errors += s.Errors
	}
	return enc.Encode(total)
}

// statusOutcome is the exit status: 2 when a rank is missing or corrupt,
// 75 when one is not complete yet, 0 when all are. The report is printed:
// the error says only that.
func statusOutcome(all []runstatus.Rank) error {
	kind, any := errkind.Internal, false
	for _, s := range all {
		switch s.State {
		case "missing", "corrupt":
			kind, any = errkind.User, true
		case "running", "stopped":
			if !any {
				kind, any = errkind.Resumable, true
			}
		}
	}
	switch {
	case !any:
		return nil
	case kind == errkind.User:
		return errkind.Mark(kind, errors.New("a rank is missing or corrupt (see above)"))
	}
	return errkind.Mark(kind, errors.New("not every rank is complete yet (see above)"))
}
