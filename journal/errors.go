package journal

import (
	"strings"

	"qa-shard/internal/errkind"
	"qa-shard/internal/fingerprint"
)

// MismatchError says which fingerprint components changed. It matches
// ErrMismatch with errors.Is.
type MismatchError struct {
	Changes []fingerprint.Change
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	for i, c := range e.Changes {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.String())
	}
	b.WriteString(": --resume needs the same input, model, settings and questions as the run that wrote the journal; rerun with those, or start over with --overwrite")
	return b.String()
}

func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// FailureKind is ErrMismatch's: the user reruns with the same inputs.
func (e *MismatchError) FailureKind() errkind.Kind { return errkind.User }
