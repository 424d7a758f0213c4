package logits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/errkind"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/partfolder"
)

// RunKey names, in a part's metadata, the run that wrote it (Options.Run).
const RunKey = "qa_shard.run"

// ErrParts: the logits folder does not hold the parts the journal
// records (some are missing, belong to another run, or were changed).
var ErrParts = errkind.NewUser("the logits folder does not match the journal")

// sealed is what a checkpoint knows of a part: its size and footer's
// SHA-256 (partfolder.Footer) and the run its metadata names.
type sealed struct {
	partfolder.Footer
	run string
}

// readSealed reads a sealed part's footer, a few kilobytes whatever the
// part's size, and the run it names.
func readSealed(path string) (sealed, error) {
	f, err := os.Open(path)
	if err != nil {
		return sealed{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sealed{}, err
	}
	footer, err := partfolder.ReadFooter(f, path, st.Size())
	if err != nil {
		return sealed{}, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return sealed{}, fmt.Errorf("reading %s: %w", path, err)
	}
	run, _ := pf.Lookup(RunKey)
	return sealed{Footer: footer, run: run}, nil
}

// chain adds one part to the digest of the parts before it (Digest).
func chain(prev string, s sealed) string { return partfolder.Chain(prev, s.Footer) }

// Verify proves that dir holds the keep parts whose digest is digest,
// written by run, and that the parts after them, if any, are of the same
// run (sealed after the last checkpoint: OpenParts removes them). Anything
// else is ErrParts naming the parts: missing, of another run (or not a
// logits part at all), or changed since the checkpoint, and saying what a
// run given that folder does next. It changes nothing.
func Verify(dir string, keep int, digest, run string) error {
	if err := Compare(dir, keep, digest, run); err != nil {
		return fmt.Errorf("%w; give --logits the folder this run wrote, or start over with --overwrite", err)
	}
	return nil
}

// Compare is Verify's check, its error without the advice to a run (for
// another reader of a run's folder: merge).
func Compare(dir string, keep int, digest, run string) error {
	var missing, foreign []string
	d := ""
	for i := range keep {
		path := partfolder.Path(dir, i)
		s, err := readSealed(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			missing = append(missing, filepath.Base(path))
			continue
		case err != nil:
			foreign = append(foreign, filepath.Base(path)+" (unreadable: "+err.Error()+")")
			continue
		case s.run != run:
			foreign = append(foreign, filepath.Base(path))
		}
		d = chain(d, s)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("logits: %w", err)
	}
	for _, e := range entries {
		if i, ok := partfolder.Index(e.Name()); !ok || i < keep {
			continue
		}
		if s, err := readSealed(filepath.Join(dir, e.Name())); err != nil || s.run != run {
			foreign = append(foreign, e.Name())
		}
	}
	if what := fingerprint.LogitsParts(dir, keep, missing, foreign, d, digest); what != "" {
		return fmt.Errorf("%w: %s", ErrParts, what)
	}
	return nil
}
