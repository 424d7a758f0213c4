// Package pin holds the files of a run to what this process read or wrote
// of them: a path that still leads to the same file (not removed, not
// replaced), of the size written, and a folder with its sealed parts. The
// input, the outputs and their part folders are pinned with it, and every
// change it finds is one error, ErrChanged.
package pin

import (
	"errors"
	"fmt"
	"os"

	"qa-shard/internal/errkind"
)

// ErrChanged marks a pinned file changed from outside the run. The
// errors that carry it say only what changed ("was removed (...)"), for
// the caller to name the file and what happens next.
var ErrChanged = errkind.NewInternal("a file was changed from outside the run")

// changed is a change found, worded as it happened; it is ErrChanged.
type changed struct {
	what string
	err  error // the cause, when one (a failed stat); nil otherwise
}

func (c *changed) Error() string             { return c.what }
func (c *changed) Unwrap() error             { return c.err }
func (c *changed) Is(target error) bool      { return target == ErrChanged }
func (c *changed) FailureKind() errkind.Kind { return errkind.Of(ErrChanged) }

// Changedf is an ErrChanged worded by format as fmt.Errorf words it
// (wrapping its %w, when one).
func Changedf(format string, a ...any) error {
	e := fmt.Errorf(format, a...)
	return &changed{what: e.Error(), err: errors.Unwrap(e)}
}

// Same returns the file at path now when it is still the file noted;
// else an ErrChanged saying "was removed (cause)" or "was replaced by
// another file" ("folder" for a folder).
func Same(path string, noted os.FileInfo) (os.FileInfo, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, Changedf("was removed (%w)", err)
	case !os.SameFile(st, noted):
		kind := "file"
		if noted.IsDir() {
			kind = "folder"
		}
		return nil, Changedf("was replaced by another %s", kind)
	}
	return st, nil
}
