// Package errkind says what the person running qa-shard does about an
// error: fix the command line, a file or the environment (User), rerun
// with --resume once the cause is gone (Resumable), read the error records
// of a run that completed with more than it tolerates (Records), or report
// it (any other error: Internal). Each package declares its sentinel
// errors with the kind they are, and marks an outcome no sentinel names
// (Mark), so the kind travels with the error through every %w;
// cmd/qa-shard turns kinds into exit codes in one place, one code a kind.
package errkind

// Kind is what to do about an error.
type Kind int

const (
	// Internal: a bug or an unexpected failure of the system.
	Internal Kind = iota
	// Records: the run completed, with more error records (bad lines,
	// unanswerable questions) than it tolerates; each record says why. Also
	// a check that completed below the threshold the user set (quantize
	// --check-input).
	Records
	// User: the user fixes flags, files or environment.
	User
	// Resumable: the journal is consistent; the run passes with --resume
	// once the cause (a full disk, a failed device) is gone.
	Resumable
)

func (k Kind) String() string {
	switch k {
	case User:
		return "user"
	case Resumable:
		return "resumable"
	case Records:
		return "records"
	}
	return "internal"
}

// Kinded is an error that knows its kind: the sentinels made here, and
// error types that stand for a sentinel.
type Kinded interface {
	error
	FailureKind() Kind
}

type sentinel struct {
	msg  string
	kind Kind
}

func (s *sentinel) Error() string     { return s.msg }
func (s *sentinel) FailureKind() Kind { return s.kind }

// NewUser is a sentinel error for what the user fixes.
func NewUser(msg string) error { return &sentinel{msg, User} }

// NewResumable is a sentinel error for a failure --resume gets past.
func NewResumable(msg string) error { return &sentinel{msg, Resumable} }

// NewRecords is a sentinel error for an outcome that completed below what
// the user tolerates (a check under its threshold).
func NewRecords(msg string) error { return &sentinel{msg, Records} }

// NewInternal is a sentinel error that marks a bug (an API misused), said
// explicitly so that no sentinel is left without a kind by oversight.
func NewInternal(msg string) error { return &sentinel{msg, Internal} }

// Mark is err with kind k, its message and its chain unchanged: the
// outcome of a run that no sentinel names (interrupted and resumable,
// completed past its error limit). As for any error, Of is the highest
// kind in its tree, so a resumable cause inside stays resumable.
func Mark(k Kind, err error) error { return &marked{err, k} }

type marked struct {
	err  error
	kind Kind
}

func (m *marked) Error() string     { return m.err.Error() }
func (m *marked) Unwrap() error     { return m.err }
func (m *marked) FailureKind() Kind { return m.kind }

// Of is err's kind: Resumable if any error in its tree (every %w, every
// errors.Join) is resumable, else User if any is the user's, else Records
// if any is marked so, else Internal. A resumable cause wins because what was written is safe and
// the rerun is what passes.
func Of(err error) Kind {
	k := Internal
	walk(err, func(e error) {
		if ke, ok := e.(Kinded); ok { //nolint:errorlint // walk visits every wrapped error itself
			k = max(k, ke.FailureKind())
		}
	})
	return k
}

// walk calls f on err and every error it wraps.
func walk(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) { //nolint:errorlint // unwrapping is what walk does
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, f)
		}
	}
}
