// Package merge combines the outputs of the ranks of a split run into the
// files one process would have written, after proving that the ranks form
// one run covering the corpus once and that every file it copies is the
// one its rank's journal vouches for. It never writes over, into or
// through a rank's files: every output is built under a new temporary
// name beside its destination and renamed into place.
package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/internal/errkind"
	"qa-shard/internal/filelock"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/readstate"
	"qa-shard/journal"
	"qa-shard/output"
	"qa-shard/shard"
)

// Sentinels, found with errors.Is; all are the user's to fix (exit 2).
var (
	// ErrRanks marks rank files that do not form one complete run: a
	// rank missing, given twice, incomplete or changed, or run with
	// other settings.
	ErrRanks = errkind.NewUser("the rank files do not form one complete run")
	// ErrTarget marks a merged output that would be, contain or lie
	// inside a rank's files, or an existing one merge may not replace.
	ErrTarget = errkind.NewUser("the merged output cannot be written there")
	// ErrFormat marks a merged output whose name says no format merge
	// can write from these ranks.
	ErrFormat = errkind.NewUser("the merged output's name says no format merge can write")
)

// options say what to merge into what.
type options struct {
	Output    string   // the merged answers; its name says their format
	Logits    string   // the merged logits folder; "" to leave the ranks' where they are
	Overwrite bool     // replace an existing merged output (whole)
	Ranks     []string // the ranks' answers, any order
	// Step, when set, is called before every change the merge makes on
	// disk, with a few words naming it; an error it returns fails the
	// merge there. Tests inject failures and kills through it.
	Step func(step string) error
}

// result says what a merge wrote.
type result struct {
	Ranks       int
	Documents   int64         // documents, all ranks together
	From, To    format.Format // the ranks' answers format, and the merged one's
	AnswerParts int           // parts in a Parquet answers folder
	LogitsParts int           // parts in the logits folder, when one was asked for
	// LogitsLeft counts the ranks' logits parts left unmerged because no
	// logits folder was asked for (the caller says so).
	LogitsLeft int
	// Leftover says what an output replaced left behind because it could
	// not be removed (the next merge into it removes it); "" when none.
	Leftover string
}

type rankFile struct {
	path  string
	state journal.State
	shard readstate.Block
}

// plan is a merge checked as far as it can be without reading the ranks'
// outputs: names, journals, the ranks forming one run, where the outputs
// go. write does the rest.
type plan struct {
	opt      options
	ranks    []rankFile
	from, to format.Format
	columns  output.Options // the answers' columns, to write JSONL ranks as Parquet
}

// mergeFiles merges the rank files at opt.Ranks into opt.Output and, when
// opt.Logits is set, their logits folders into it (each rank's folder is
// the one its journal records; for older journals, which record none,
// <Logits>.rank-RRRRR-of-WWWWW). The caller holds the locks (Lock).
func mergeFiles(opt options) (result, error) {
	p, err := prepare(opt)
	if err != nil {
		return result{}, err
	}
	return p.write()
}

// prepare checks, changing nothing, that the merge can be done: the
// output's name says a format merge can write from these ranks, the ranks
// form one complete run, and the outputs are not among the ranks' files
// and do not exist (or, with Overwrite, are outputs merge may replace).
func prepare(opt options) (*plan, error) {
	if len(opt.Ranks) == 0 {
		return nil, fmt.Errorf("%w: no rank files given", ErrRanks)
	}
	to, err := format.ForOutput(opt.Output)
	if opt.Output == "-" {
		err = fmt.Errorf("merge writes a file, not standard output")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: --output %w", ErrFormat, err)
	}
	ranks, err := readRanks(opt.Ranks)
	if err != nil {
		return nil, err
	}
	if err := checkRanks(ranks); err != nil {
		return nil, err
	}
	if opt.Logits != "" && !wroteLogits(ranks) {
		return nil, fmt.Errorf("%w: --logits %s: the ranks wrote no logits (their runs had no --logits), so there are none to merge; leave --logits out", ErrRanks, opt.Logits)
	}
	p := &plan{opt: opt, ranks: ranks, to: to, from: format.Of(ranks[0].path)}
	if err := p.checkFormats(); err != nil {
		return nil, err
	}
	if err := p.checkTargets(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkFormats: every rank wrote the same format, and the merged one can
// be written from it exactly as one process would have written it.
func (p *plan) checkFormats() error {
	for _, r := range p.ranks {
		if f := format.Of(r.path); f != p.from {
			return fmt.Errorf("%w: %s holds %s answers and %s %s", ErrRanks, p.ranks[0].path, p.from, r.path, f)
		}
	}
	switch {
	case p.from == format.Parquet && p.to != format.Parquet:
		return fmt.Errorf("%w: the ranks wrote Parquet answers, and %s names %s: Parquet keeps ids and kept fields as typed values, not the JSON text a single process writes into JSONL, so that text cannot be rebuilt exactly; name the merged output .parquet", ErrFormat, p.opt.Output, p.to)
	case p.from != format.Parquet && p.to == format.Parquet:
		// The answers' columns, read back from the settings a rank's
		// journal records.
		keep, schema, topK, err := output.Columns(p.ranks[0].state.Fingerprint.SettingsText)
		if err != nil {
			return fmt.Errorf("%w: %s cannot be written as Parquet from %s ranks: %w; name it in the ranks' format", ErrFormat, p.opt.Output, p.from, err)
		}
		p.columns = output.Options{Keep: keep, Schema: schema, TopK: topK}
	}
	return nil
}

// readRanks reads the journal of every rank named. A rank may be named
// by its answers, its journal or its lock (a glob such as
// answers.rank-* matches all three): each names the rank's answers, once.
func readRanks(paths []string) ([]rankFile, error) {
	var ranks []rankFile
	for _, p := range rankPaths(paths) {
		st, err := journal.Read(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (merge needs the journal each rank writes beside its output)", p, err)
		}
		if st.Fingerprint.Block == nil {
			return nil, fmt.Errorf("%w: %s was written by a single process, not a rank: it needs no merge", ErrRanks, p)
		}
		ranks = append(ranks, rankFile{path: p, state: st, shard: *st.Fingerprint.Block})
	}
	slices.SortFunc(ranks, func(a, b rankFile) int { return a.shard.Rank - b.shard.Rank })
	return ranks, nil
}

// rankPaths are the answers the arguments name: a journal or a lock names
// the answers beside it, once however many of the three are given (the
// same answers given twice is refused later: two ranks of one number).
func rankPaths(args []string) []string {
	var out, aliased []string
	for _, a := range args {
		if !strings.HasSuffix(a, journal.Suffix) && !strings.HasSuffix(a, filelock.Suffix) {
			out = append(out, a)
		}
	}
	for _, a := range args {
		p := strings.TrimSuffix(strings.TrimSuffix(a, filelock.Suffix), journal.Suffix)
		if p == a || slices.ContainsFunc(out, func(o string) bool { return filepath.Clean(o) == filepath.Clean(p) }) || slices.Contains(aliased, filepath.Clean(p)) {
			continue
		}
		aliased = append(aliased, filepath.Clean(p))
		out = append(out, p)
	}
	return out
}

// checkRanks proves the ranks form one run that covers the corpus once:
// the same inputs and settings, every rank present and complete, and
// blocks that tile the documents without gap or overlap.
func checkRanks(ranks []rankFile) error {
	world := ranks[0].shard.World
	ref := ranks[0].state.Fingerprint
	var problems []string
	have := map[int]rankFile{}
	for _, r := range ranks {
		fp := r.state.Fingerprint
		switch {
		case r.shard.World != world:
			problems = append(problems, fmt.Sprintf("%s is rank %d of %d, but %s is of %d", r.path, r.shard.Rank, r.shard.World, ranks[0].path, world))
		case fingerprint.Differing(fp, ref) != "":
			problems = append(problems, fmt.Sprintf("%s ran with a different %s than %s", r.path, fingerprint.Differing(fp, ref), ranks[0].path))
		}
		if prev, dup := have[r.shard.Rank]; dup {
			problems = append(problems, fmt.Sprintf("rank %d given twice: %s and %s", r.shard.Rank, prev.path, r.path))
		}
		have[r.shard.Rank] = r
		if !r.state.Complete {
			problems = append(problems, fmt.Sprintf("rank %d (%s) is incomplete: %d documents are saved; rerun it with --resume",
				r.shard.Rank, r.path, r.state.Done))
		}
		if st, err := os.Stat(r.path); err != nil || (!st.IsDir() && st.Size() != r.state.Bytes) {
			problems = append(problems, fmt.Sprintf("%s does not have the %d bytes its journal records: it was changed after the run", r.path, r.state.Bytes))
		}
	}
	next, known := int64(0), true // where the next rank starts, unless the one before is missing
	for rank := range world {
		r, ok := have[rank]
		if !ok {
			at := ""
			if known {
				at = fmt.Sprintf(", input bytes from %d", next)
			}
			problems = append(problems, fmt.Sprintf("rank %d of %d is missing (%s%s)", rank, world,
				shard.Path(shard.Unpath(ranks[0].path, shard.Rank{Rank: ranks[0].shard.Rank, World: world}), shard.Rank{Rank: rank, World: world}), at))
			known = false
			continue
		}
		if r.shard.Total != ranks[0].shard.Total || (known && r.shard.From != next) {
			problems = append(problems, fmt.Sprintf("rank %d starts at input byte %d of %d, expected %d of %d: the ranks split different inputs", rank, r.shard.From, r.shard.Total, next, ranks[0].shard.Total))
		}
		next, known = r.shard.To, true
	}
	if next != ranks[0].shard.Total && len(have) == world {
		problems = append(problems, fmt.Sprintf("the ranks end at input byte %d of %d", next, ranks[0].shard.Total))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w:\n  %s", ErrRanks, strings.Join(problems, "\n  "))
	}
	return nil
}

// wroteLogits: some rank's journal records logits parts, or the ranks'
// settings say they wrote logits (ranks that answered nothing have none).
func wroteLogits(ranks []rankFile) bool {
	for _, r := range ranks {
		if r.state.LogitsParts > 0 || output.WroteLogits(r.state.Fingerprint.SettingsText) {
			return true
		}
	}
	return false
}

// logitsFolder is rank r's logits folder: the one its journal records,
// relative to the journal's folder, or for an older journal the rank
// folder beside the merged one, dir.
func logitsFolder(dir string, r rankFile) string {
	switch rec := r.state.Logits; {
	case rec == "":
		return shard.Path(dir, shard.Rank{Rank: r.shard.Rank, World: r.shard.World})
	case filepath.IsAbs(rec):
		return rec
	default:
		return filepath.Join(filepath.Dir(r.path), rec)
	}
}

// name is how messages name rank r.
func (r rankFile) name() string {
	return fmt.Sprintf("rank %d of %d (%s)", r.shard.Rank, r.shard.World, r.path)
}
