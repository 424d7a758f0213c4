package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"qa-shard/cli"
	"qa-shard/filelock"
	"qa-shard/journal"
	"qa-shard/shard"
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

// rankStatus is one output's state, as status prints it.
type rankStatus struct {
	Output     string    `json:"output"`
	Rank       int       `json:"rank"`
	World      int       `json:"world"`
	State      string    `json:"state"` // complete, running, stopped, missing, corrupt
	Documents  int64     `json:"documents"`
	Errors     int64     `json:"error_records"`
	Percent    *float64  `json:"percent,omitempty"` // of the rank's input bytes; absent when unknown
	Checkpoint time.Time `json:"last_checkpoint,omitzero"`
	Host       string    `json:"host,omitempty"`
	PID        int       `json:"pid,omitempty"`
	Checked    bool      `json:"checked"` // running: seen from this host
	Problem    string    `json:"problem,omitempty"`
}

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
		found, err := findOutputs(a)
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
	var all []rankStatus
	for _, o := range outputs {
		all = append(all, readStatus(o))
	}
	all = addMissingRanks(all)
	if *asJSON {
		if err := writeStatusJSON(os.Stdout, all); err != nil {
			return err
		}
	} else {
		writeStatus(os.Stdout, all, now)
	}
	return statusOutcome(all)
}

// findOutputs turns one argument into the outputs it names: a glob's
// matches, an output with a journal, or the rank files beside a split
// run's --output.
func findOutputs(arg string) ([]string, error) {
	if strings.ContainsAny(arg, "*?[") {
		matches, err := filepath.Glob(arg)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", errUsage, arg, err)
		}
		var out []string
		for _, m := range matches {
			for _, suffix := range []string{journal.Suffix, filelock.Suffix, ".metrics.json"} {
				m = strings.TrimSuffix(m, suffix)
			}
			out = append(out, m)
		}
		return out, nil
	}
	if _, err := os.Stat(journal.Path(arg)); err == nil || isRank(arg) {
		return []string{arg}, nil
	}
	ranks, err := filepath.Glob(shard.Pattern(arg) + journal.Suffix)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errUsage, arg, err)
	}
	if len(ranks) == 0 {
		return []string{arg}, nil // reported as missing
	}
	for i := range ranks {
		ranks[i] = strings.TrimSuffix(ranks[i], journal.Suffix)
	}
	return ranks, nil
}

// readStatus reads one output's journal and lock.
func readStatus(output string) rankStatus {
	s := rankStatus{Output: output, World: 1}
	if _, r, ok := shard.Parse(output); ok {
		s.Rank, s.World = r.Rank, r.World
	}
	st, err := journal.Read(output)
	switch {
	case errors.Is(err, journal.ErrNoJournal):
		s.State, s.Problem = "missing", "no journal: never started, or its output was removed"
		return s
	case err != nil:
		s.State, s.Problem = "corrupt", err.Error()
		return s
	}
	s.Documents, s.Errors, s.Checkpoint = st.Done, st.Errors, st.Updated
	if p, ok := percentRead(st); ok {
		s.Percent = &p
	}
	lock, err := filelock.Inspect(output)
	if err != nil {
		s.Problem = err.Error()
	}
	s.Host, s.PID, s.Checked = lock.Holder.Host, lock.Holder.PID, lock.Checked
	switch {
	case st.Complete:
		s.State = "complete"
		s.Percent = nil
	case lock.Exists && (lock.Held || !lock.Checked):
		s.State = "running"
	default:
		s.State = "stopped"
	}
	return s
}

// percentRead is how much of its input block the run has answered, in
// bytes, where the journal tells: a split run's block, or a single
// uncompressed file read by one process. Compressed and Parquet inputs
// count offsets in other units, so they have none.
func percentRead(st journal.State) (float64, bool) {
	in := st.Input
	for _, f := range in.Files {
		if strings.HasSuffix(f.Name, ".gz") || strings.HasSuffix(f.Name, ".zst") || strings.HasSuffix(f.Name, ".parquet") {
			return 0, false
		}
	}
	var pos int64
	for _, f := range in.Files {
		if f.File < in.Next.File {
			pos += f.Size
		}
	}
	if len(in.Files) > 0 && in.Files[0].File > 0 {
		return 0, false // the files before the block's first are not listed: sizes unknown
	}
	pos += in.Next.Offset
	from, to := int64(0), int64(0)
	if b := st.Fingerprint.Block; b != nil {
		from, to = b.From, b.To
	} else if len(in.Files) == 1 && in.Next.File == in.Files[0].File {
		to = in.Files[0].Size
	}
	if to <= from {
		return 0, false
	}
	return 100 * float64(min(max(pos, from), to)-from) / float64(to-from), true
}

// addMissingRanks adds a "missing" line for every rank of a split run
// that has no output beside the others.
func addMissingRanks(all []rankStatus) []rankStatus {
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.Output] = true
	}
	out := all
	for _, s := range all {
		if s.World <= 1 || s.State == "missing" {
			continue
		}
		base, _, _ := shard.Parse(s.Output)
		for r := range s.World {
			p := shard.Path(base, shard.Rank{Rank: r, World: s.World})
			if !seen[p] {
				seen[p] = true
				out = append(out, rankStatus{Output: p, Rank: r, World: s.World, State: "missing",
					Problem: "no journal: never started, or its output was removed"})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b rankStatus) int { return strings.Compare(a.Output, b.Output) })
	return out
}

func writeStatus(w io.Writer, all []rankStatus, now time.Time) {
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

func writeStatusJSON(w io.Writer, all []rankStatus) error {
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
// 75 when one is not complete yet, 0 when all are.
func statusOutcome(all []rankStatus) error {
	worst := exitOK
	for _, s := range all {
		switch s.State {
		case "missing", "corrupt":
			worst = exitUsage
		case "running", "stopped":
			if worst == exitOK {
				worst = exitInterrupted
			}
		}
	}
	if worst == exitOK {
		return nil
	}
	return &exitError{code: worst, err: errStatusQuiet{worst}}
}

// errStatusQuiet is the outcome of a status that printed its report: main
// has nothing to add but the exit code.
type errStatusQuiet struct{ code int }

func (e errStatusQuiet) Error() string {
	if e.code == exitUsage {
		return "a rank is missing or corrupt (see above)"
	}
	return "not every rank is complete yet (see above)"
}

// isRank says whether path names one rank's output.
func isRank(path string) bool {
	_, _, ok := shard.Parse(path)
	return ok
}
