// Package status is `qa-shard status`: it says where a run stands from
// its outputs' journals and lock files, and whether the outputs hold what
// the journals vouch for, without disturbing a job that writes them: no
// lock is taken (safe to run from cron every minute).
package status

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"qa-shard/internal/cli"
	"qa-shard/internal/errkind"
	"qa-shard/internal/filelock"
	"qa-shard/internal/fingerprint"
	"qa-shard/journal"
	"qa-shard/output"
	"qa-shard/shard"
)

// ErrPattern marks an argument that is not a valid glob.
var ErrPattern = errkind.NewUser("bad pattern")

// The outcomes of a status that printed its report (Outcome): the report
// says the rest.
var (
	ErrBroken     = errkind.NewUser("a rank is missing, corrupt or mismatched (see above)")
	ErrIncomplete = errkind.NewResumable("not every rank is complete yet (see above)")
)

// rankState is one output's state: a rank of a split run, or the output of
// a single process (rank 0 of 1).
type rankState struct {
	Output     string    `json:"output"`
	Rank       int       `json:"rank"`
	World      int       `json:"world"`
	State      string    `json:"state"` // complete, running, stopped, missing, corrupt, mismatched
	Documents  int64     `json:"documents"`
	Errors     int64     `json:"error_records"`
	Percent    *float64  `json:"percent,omitempty"` // of the rank's input bytes; absent when unknown
	Checkpoint time.Time `json:"last_checkpoint,omitzero"`
	Host       string    `json:"host,omitempty"`
	PID        int       `json:"pid,omitempty"`
	Checked    bool      `json:"checked"` // running: seen from this host
	Problem    string    `json:"problem,omitempty"`

	fp *fingerprint.Fingerprint // what the run ran with, from its journal (nil: none read)
}

// find turns one argument into the outputs it names: a glob's
// matches, an output with a journal, or the rank files beside a split
// run's --output. An output's journal, lock file or metrics address file
// names the output, as a glob's matches do.
func find(arg string) ([]string, error) {
	if strings.ContainsAny(arg, "*?[") {
		matches, err := filepath.Glob(arg)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPattern, arg, err)
		}
		var out []string
		for _, m := range matches {
			out = append(out, outputOf(m))
		}
		return out, nil
	}
	arg = outputOf(arg)
	if _, err := os.Stat(journal.Path(arg)); err == nil || isRank(arg) {
		return []string{arg}, nil
	}
	ranks, err := filepath.Glob(shard.Pattern(arg) + journal.Suffix)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPattern, arg, err)
	}
	if len(ranks) == 0 {
		return []string{arg}, nil // reported as missing
	}
	for i := range ranks {
		ranks[i] = strings.TrimSuffix(ranks[i], journal.Suffix)
	}
	return ranks, nil
}

// outputOf is the output a file beside it names (its journal, its lock
// file, its metrics address file), or path itself.
func outputOf(path string) string {
	for _, suffix := range []string{journal.Suffix, filelock.Suffix, ".metrics.json"} {
		path = strings.TrimSuffix(path, suffix)
	}
	return path
}

// collect is the state of every output args name (Find: a run's
// --output, a rank's file, a glob), sorted, each once, with a "missing"
// entry for each rank of a split run that has none (AddMissing), and the
// ranks that ran with other inputs, model, settings or questions than the
// others of their run marked mismatched (Mismatched). Each output is
// checked against its journal (Read; deep: its content too). Nothing
// found at all is a usage error.
func collect(args []string, deep bool) ([]rankState, error) {
	var outputs []string
	for _, a := range args {
		found, err := find(a)
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, found...)
	}
	if len(outputs) == 0 {
		return nil, fmt.Errorf("%w: no run found at %s (no journal, no rank files)", cli.ErrUsage, strings.Join(args, " "))
	}
	slices.Sort(outputs)
	var all []rankState
	for _, o := range slices.Compact(outputs) {
		all = append(all, read(o, deep))
	}
	return mismatched(addMissing(all, deep)), nil
}

// outcome is what the ranks' states mean together: ErrBroken when a rank
// is missing, corrupt or mismatched, else ErrIncomplete when one is
// running or stopped, else nil (every rank complete).
func outcome(all []rankState) error {
	var err error
	for _, s := range all {
		switch s.State {
		case "missing", "corrupt", "mismatched":
			return ErrBroken
		case "running", "stopped":
			err = ErrIncomplete
		}
	}
	return err
}

// read reads one output's journal and lock and, unless the run is
// running, checks the output against its journal (output.CheckSaved;
// deep: its content too): an output that does not hold what the journal
// vouches for is corrupt, as --resume and merge would refuse it.
func read(path string, deep bool) rankState {
	s := rankState{Output: path, World: 1}
	if _, r, ok := shard.Parse(path); ok {
		s.Rank, s.World = r.Rank, r.World
	}
	st, err := journal.Read(path)
	switch {
	case errors.Is(err, journal.ErrNoJournal):
		s.State, s.Problem = "missing", "no journal: never started, or its output was removed"
		return s
	case err != nil:
		s.State, s.Problem = "corrupt", err.Error()
		return s
	}
	s.Documents, s.Errors, s.Checkpoint, s.fp = st.Done, st.Errors, st.Updated, &st.Fingerprint
	if p, ok := percentRead(st); ok {
		s.Percent = &p
	}
	lock, err := filelock.Inspect(path)
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
	if s.State != "running" {
		if err := output.CheckSaved(path, st, st.LogitsFolder(path), deep); err != nil {
			s.State, s.Problem = "corrupt", err.Error()
		}
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

// addMissing adds every rank of a split run that was not named beside
// the others: as Read finds it (deep as there) when its journal is there
// (a rank's file named alone stands for its run), else "missing".
func addMissing(all []rankState, deep bool) []rankState {
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
			if seen[p] {
				continue
			}
			seen[p] = true
			if _, err := os.Stat(journal.Path(p)); err == nil {
				out = append(out, read(p, deep))
				continue
			}
			out = append(out, rankState{Output: p, Rank: r, World: s.World, State: "missing",
				Problem: "no journal: never started, or its output was removed"})
		}
	}
	slices.SortStableFunc(out, func(a, b rankState) int { return strings.Compare(a.Output, b.Output) })
	return out
}

// isRank says whether path names one rank's output.
func isRank(path string) bool {
	_, _, ok := shard.Parse(path)
	return ok
}
