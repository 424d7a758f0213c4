// Package merge combines the outputs of the ranks of a split run into the
// files one process would have written, after proving that the ranks form
// one run covering the corpus once.
package merge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/internal/errkind"
	"qa-shard/internal/journal"
	"qa-shard/internal/partfolder"
	"qa-shard/shard"
)

// ErrRanks marks rank files that do not form one complete run: a rank
// missing, given twice, incomplete or changed, or run with other settings.
var ErrRanks = errkind.NewUser("the rank files do not form one complete run")

// Result says what a merge wrote.
type Result struct {
	Ranks       int
	Documents   int64 // documents, all ranks together
	AnswerParts int   // parts linked into a Parquet answers folder
	LogitsParts int   // parts linked into the logits folder, when one was asked for
	// LogitsLeft counts the ranks' logits parts left unmerged because no
	// logits folder was asked for (the caller says so).
	LogitsLeft int
}

type rankFile struct {
	path  string
	state journal.State
	shard shard.Block
}

// Files merges the rank files at paths (any order) into output and, when
// lg is set, the ranks' logits folders into lg: each rank's folder is the
// one its journal records (older journals, which record none: the
// <lg>.rank-RRRRR-of-WWWWW beside lg). JSONL answers are concatenated
// (compressed ones too: gzip members and zstd frames concatenate into one
// valid file); a Parquet answers folder gets every rank's parts, in order.
// Every rank's logits parts are found before anything is written, and a
// merge that fails removes what it wrote, so it can be run again as is.
func Files(output, lg string, overwrite bool, paths []string) (res Result, err error) {
	ranks, err := readRanks(paths)
	if err != nil {
		return Result{}, err
	}
	if err := checkRanks(ranks); err != nil {
		return Result{}, err
	}
	if _, err := os.Stat(output); err == nil && !overwrite {
		return Result{}, fmt.Errorf("%w: %s: add --overwrite to replace it", journal.ErrExists, output)
	}
	if lg == "" {
		for _, r := range ranks {
			res.LogitsLeft += r.state.LogitsParts
		}
	} else if err := checkLogits(lg, ranks); err != nil {
		return Result{}, err
	}
	defer func() {
		if err != nil {
			removeWritten(output, lg)
		}
	}()
	if isFolder(output) {
		if err := removeParts(output); err != nil {
			return Result{}, err
		}
	}
	res.Ranks = len(ranks)
	for _, r := range ranks {
		res.Documents += r.state.Done
	}
	if isFolder(ranks[0].path) {
		res.AnswerParts, err = linkParts(output, ranks, func(r rankFile) (string, int) { return r.path, r.state.AnswerParts })
	} else {
		err = concat(output, ranks)
	}
	if err != nil {
		return Result{}, err
	}
	if lg != "" {
		res.LogitsParts, err = mergeLogits(lg, ranks)
	}
	return res, err
}

func readRanks(paths []string) ([]rankFile, error) {
	var ranks []rankFile
	for _, p := range paths {
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
		case Differing(fp, ref) != "":
			problems = append(problems, fmt.Sprintf("%s ran with a different %s than %s", r.path, Differing(fp, ref), ranks[0].path))
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
	next := int64(0)
	for rank := range world {
		r, ok := have[rank]
		if !ok {
			problems = append(problems, fmt.Sprintf("rank %d of %d is missing (%s, input bytes from %d)", rank, world,
				shard.Path(shard.Unpath(ranks[0].path, shard.Rank{Rank: ranks[0].shard.Rank, World: world}), shard.Rank{Rank: rank, World: world}), next))
			continue
		}
		if r.shard.From != next || r.shard.Total != ranks[0].shard.Total {
			problems = append(problems, fmt.Sprintf("rank %d starts at input byte %d of %d, expected %d of %d: the ranks split different inputs", rank, r.shard.From, r.shard.Total, next, ranks[0].shard.Total))
		}
		next = r.shard.To
	}
	if next != ranks[0].shard.Total && len(have) == world {
		problems = append(problems, fmt.Sprintf("the ranks end at input byte %d of %d", next, ranks[0].shard.Total))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w:\n  %s", ErrRanks, strings.Join(problems, "\n  "))
	}
	return nil
}

// concat writes the rank files in rank order under a temporary name and
// renames it when complete and synced.
func concat(output string, ranks []rankFile) error {
	tmp := output + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	for _, r := range ranks {
		in, err := os.Open(r.path)
		if err != nil {
			f.Close()
			return err
		}
		_, err = io.Copy(f, in)
		in.Close()
		if err != nil {
			f.Close()
			return fmt.Errorf("copying %s: %w", r.path, err)
		}
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, output)
}

// mergeLogits links (or copies) every rank's logits parts, in order, into
// dir, and returns how many there were.
func mergeLogits(dir string, ranks []rankFile) (int, error) {
	return linkParts(dir, ranks, func(r rankFile) (string, int) { return logitsFolder(dir, r), r.state.LogitsParts })
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

// checkLogits refuses, before anything is written, ranks whose recorded
// logits parts are not all there. (Whether the ranks were run with
// --logits at all is part of the settings checkRanks holds equal.)
func checkLogits(dir string, ranks []rankFile) error {
	var problems []string
	for _, r := range ranks {
		src := logitsFolder(dir, r)
		for i := range r.state.LogitsParts {
			if _, err := os.Stat(partfolder.Path(src, i)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: logits part %d of %d is missing from %s", r.path, i+1, r.state.LogitsParts, src))
				break
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: cannot merge the logits (nothing written): %s", ErrRanks, strings.Join(problems, "; "))
	}
	return nil
}

// removeWritten removes what a failed merge wrote: the merged answers and
// the merged logits folder, so that the same merge can run again.
func removeWritten(output, lg string) {
	if isFolder(output) {
		_ = removeParts(output)
		_ = os.Remove(output)
	} else {
		_ = os.Remove(output)
	}
	if lg != "" {
		_ = removeParts(lg)
		_ = os.Remove(lg) // only when empty: a folder with files of its own stays
	}
}

// linkParts links (or copies) every rank's parts (from src: its folder
// and how many sealed parts it has), in order, into dir.
func linkParts(dir string, ranks []rankFile, src func(rankFile) (string, int)) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range ranks {
		srcDir, count := src(r)
		for i := range count {
			from, to := partfolder.Path(srcDir, i), partfolder.Path(dir, n)
			if err := os.Link(from, to); err != nil {
				if err := copyFile(from, to); err != nil {
					return n, fmt.Errorf("merging parts: %w", err)
				}
			}
			n++
		}
	}
	return n, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// isFolder reports whether a rank's answers are a folder of parts.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// removeParts empties a merged parts folder being overwritten.
func removeParts(dir string) error {
	matches, _ := partfolder.List(dir)
	for _, m := range matches {
		if err := os.Remove(m); err != nil {
			return err
		}
	}
	return nil
}
