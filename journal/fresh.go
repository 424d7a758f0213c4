package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// CheckFresh enforces "never silently overwrite": it returns ErrExists,
// naming every one of paths that exists, with what to do. Empty paths and
// "-" (standard output) are skipped, so callers can pass optional outputs
// as they are.
func CheckFresh(paths ...string) error {
	var found []string
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		_, err := os.Lstat(p)
		if err == nil {
			found = append(found, p)
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: checking %s: %w", p, err)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: add --resume to continue the run that wrote it, or --overwrite to start over", ErrExists, strings.Join(found, ", "))
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
