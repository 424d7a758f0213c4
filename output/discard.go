package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"qa-shard/output/logits"
)

// Discard removes what this process created for a run that is refused
// before any document is saved (a metrics port in use, an input that
// cannot be opened): the answers file or folder, its journal and the
// logits folder, so that the same command works once the cause is fixed,
// instead of finding an output that "already exists". It does nothing to
// outputs a resume opened, to outputs that hold saved documents, or to a
// folder that was there before the run; it closes the outputs first.
func (o *Outputs) Discard() error {
	if !o.created || o.journal == nil || o.Saved() > 0 {
		return nil
	}
	o.Close()
	var errs []error
	if o.logitsPath != "" {
		errs = append(errs, logits.RemoveParts(o.logitsPath))
		if o.logitsCreated {
			if err := os.Remove(o.logitsPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, remove(o.path))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing the outputs of the refused run: %w", err)
	}
	return nil
}
