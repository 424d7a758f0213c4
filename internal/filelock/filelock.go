// Package filelock gives a run exclusive use of its output files: an
// exclusive kernel lock (flock) on a lock file beside each output, held for
// the whole life of the process. The kernel drops the lock when the
// process ends, however it ends (SIGKILL included), so a lock never goes
// stale the way a pid file does. The lock file records who holds it (pid,
// host, start time, command) so that a refused writer can name the holder.
//
// Where the locks hold: local file systems; NFS (Linux emulates flock with
// NFS byte-range locks on the whole file since 2.6.12, so they exclude
// other clients too, unless the share is mounted with nolock or
// local_lock=flock|all, which makes them local to one client); Lustre only
// when mounted with -o flock (-o localflock locks within one client only;
// without either, flock fails with ENOSYS and Acquire says so).
//
// The package imports only the standard library.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"qa-shard/internal/errkind"
)

// Suffix names the lock file of an output: <output>.lock.
const Suffix = ".lock"

// Sentinels, found with errors.Is.
var (
	// ErrHeld: another process holds the lock; the error is a *HeldError.
	ErrHeld = errkind.NewUser("output in use")
	// ErrUnsupported: the file system refuses locks (ENOLCK, ENOSYS,
	// EOPNOTSUPP), so exclusive use cannot be guaranteed.
	ErrUnsupported = errkind.NewUser("the file system does not support file locks")
)

// Holder is who holds a lock, as written in the lock file.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "a process that has not yet written its name into the lock file"
	}
	cmd := h.Command
	if len(cmd) > 160 {
		cmd = cmd[:157] + "..."
	}
	return fmt.Sprintf("pid %d on host %s since %s (%s)", h.PID, h.Host, h.Started.Format(time.RFC3339), cmd)
}

// HeldError says which lock is taken and by whom.
type HeldError struct {
	Target string // the output the lock guards
	Path   string // the lock file
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is being written by another qa-shard: %s is locked by %s; wait for that run to end or stop it (two writers would corrupt the output, whatever --resume or --overwrite say)",
		e.Target, e.Path, e.Holder)
}

func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// FailureKind is ErrHeld's: another run holds the output.
func (e *HeldError) FailureKind() errkind.Kind { return errkind.User }

// Path is the lock file of target (a file or a folder).
func Path(target string) string {
	return strings.TrimRight(target, "/") + Suffix
}

// Lock is a held lock; Release gives it up.
type Lock struct {
	path string
	f    *os.File
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Release removes the lock file and then drops the lock (in that order,
// see acquire). Releasing a nil Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}

// Set holds several locks; Release gives them all up.
type Set []*Lock

// Release releases every lock of the set.
func (s Set) Release() error {
	var errs []error
	for i := len(s) - 1; i >= 0; i-- {
		errs = append(errs, s[i].Release())
	}
	return errors.Join(errs...)
}

// AcquireAll locks every target that is not "" or "-" (standard output),
// or none: on an error the locks already taken are released.
func AcquireAll(command string, targets ...string) (Set, error) {
	var s Set
	for _, t := range targets {
		if t == "" || t == "-" {
			continue
		}
		l, err := Acquire(t, command)
		if err != nil {
			s.Release()
			return nil, err
		}
		s = append(s, l)
	}
	return s, nil
}
