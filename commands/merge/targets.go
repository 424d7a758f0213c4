package merge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"qa-shard/internal/filelock"
	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/journal"
)

// A merged output is refused before anything is written when it is,
// contains or lies inside any rank's files (its answers, journal, lock
// or logits folder), or the other merged output; and when it exists,
// unless --overwrite is given and it is an output merge may replace: a
// file for JSONL answers, a folder holding only parts for Parquet
// answers and logits (so that replacing it whole removes nothing else).

// owned is one of the ranks' files, for the messages.
type owned struct {
	path, what string
}

// rankFiles lists every rank's files: its answers (file or folder), its
// journal and lock, and its logits folder when the merge reads it.
func (p *plan) rankFiles() []owned {
	var files []owned
	for _, r := range p.ranks {
		files = append(files, owned{r.path, r.name() + "'s answers"}, owned{journal.Path(r.path), r.name() + "'s journal"},
			owned{filelock.Path(r.path), r.name() + "'s lock file"})
		if r.state.Logits != "" || (p.opt.Logits != "" && r.state.LogitsParts > 0) {
			files = append(files, owned{logitsFolder(p.opt.Logits, r), r.name() + "'s logits folder"})
		}
	}
	return files
}

// checkTargets refuses outputs among the ranks' files, and existing ones
// (see above).
func (p *plan) checkTargets() error {
	targets := []owned{{p.opt.Output, "--output"}}
	if p.opt.Logits != "" {
		targets = append(targets, owned{p.opt.Logits, "--logits"})
		if rel := relation(p.opt.Output, p.opt.Logits); rel != "" {
			return fmt.Errorf("%w: --output %s %s --logits %s: name two separate paths", ErrTarget, p.opt.Output, rel, p.opt.Logits)
		}
	}
	for _, t := range targets {
		for _, f := range p.rankFiles() {
			if rel := relation(t.path, f.path); rel != "" {
				return fmt.Errorf("%w: %s %s %s %s (%s): merge never writes over, into or through a rank's files; choose a new path", ErrTarget, t.what, t.path, rel, f.what, f.path)
			}
		}
	}
	if _, err := os.Stat(journal.Path(p.opt.Output)); err == nil {
		return fmt.Errorf("%w: --output %s has a journal beside it (%s): it is a run's output, which a merged one would leave described wrongly; merge into another path", ErrTarget, p.opt.Output, journal.Path(p.opt.Output))
	}
	if err := p.checkExisting(p.opt.Output, "--output", p.to.String(), p.folderOutput()); err != nil {
		return err
	}
	if p.opt.Logits != "" {
		return p.checkExisting(p.opt.Logits, "--logits", "logits", true)
	}
	return nil
}

// folderOutput reports whether the merged answers are a folder of parts.
func (p *plan) folderOutput() bool { return p.to == format.Parquet }

// checkExisting refuses an existing output without --overwrite, and with
// it one that merge may not replace whole: a folder for a file, a file
// for a folder, or a folder with anything but parts in it.
func (p *plan) checkExisting(path, flag, what string, folder bool) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil // Lock, or the writing, says why it cannot be created
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !p.opt.Overwrite:
		return fmt.Errorf("%w: %s %s exists: add --overwrite to replace it whole, or choose a new path", journal.ErrExists, flag, path)
	case folder && !st.IsDir():
		return fmt.Errorf("%w: %s %s exists and is not a folder: merge writes the %s there as a folder of parts; remove it or choose another path", ErrTarget, flag, path, what)
	case !folder && !st.Mode().IsRegular():
		return fmt.Errorf("%w: %s %s exists and is not a file: remove it or choose another path", ErrTarget, flag, path)
	case !folder:
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	for _, e := range entries {
		if !partfolder.IsPart(e.Name()) {
			return fmt.Errorf("%w: %s %s holds %s, which qa-shard did not write there, and --overwrite replaces the folder whole: move it out or choose another path", ErrTarget, flag, path, e.Name())
		}
	}
	return nil
}

// relation says how path a stands to path b, "" when they are apart:
// both resolved to absolute paths through symbolic links, and the same
// file when an existing a and b are one (a hard link).
func relation(a, b string) string {
	ra, rb := resolve(a), resolve(b)
	sep := string(filepath.Separator)
	switch {
	case ra == rb:
		return "is"
	case strings.HasPrefix(rb, strings.TrimSuffix(ra, sep)+sep):
		return "contains"
	case strings.HasPrefix(ra, strings.TrimSuffix(rb, sep)+sep):
		return "lies inside"
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil && os.SameFile(sa, sb) {
		return "is (a link of)"
	}
	return ""
}

// resolve is path made absolute, with the symbolic links of its longest
// existing part resolved (what follows does not exist yet).
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
