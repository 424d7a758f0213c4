package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// CheckFresh enforces "never silently overwrite": it returns ErrExists,
// naming every one of paths that exists, with what to do: --resume only
// where a journal says a run wrote them (a path that is a journal, or has
// one beside it), else another path or --overwrite. Empty paths and "-"
// (standard output) are skipped, so callers can pass optional outputs as
// they are.
func CheckFresh(paths ...string) error {
	var found []string
	ran := false
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		_, err := os.Lstat(p)
		if err == nil {
			found = append(found, p)
			ran = ran || strings.HasSuffix(p, Suffix) || exists(Path(p))
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: checking %s: %w", p, err)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if !ran {
		return fmt.Errorf("%w: %s: no journal beside it says a qa-shard run wrote it, so there is nothing to --resume: choose another path, or add --overwrite to replace it", ErrExists, strings.Join(found, ", "))
	}
	return fmt.Errorf("%w: %s: add --resume to continue the run that wrote it, or --overwrite to start over", ErrExists, strings.Join(found, ", "))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Remove deletes an output, its journal and any unfinished journal tmp file
// (for --overwrite). The journal goes first so that an interruption never
// leaves a journal describing an output that is gone. Missing files are
// not an error.
func Remove(outputPath string) error {
	var errs []error
	for _, p := range []string{Path(outputPath), Path(outputPath) + ".tmp", outputPath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("journal: removing %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
