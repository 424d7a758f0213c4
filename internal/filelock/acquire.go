package filelock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Acquire takes the exclusive lock of target (the lock file is
// Path(target)) without waiting: when another process holds it, the error
// is a *HeldError naming the holder, at once. command is recorded in the
// lock file for such messages.
func Acquire(target, command string) (*Lock, error) {
	path := Path(target)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("filelock: creating the lock file of %s: %w", target, err)
		}
		if err := flock(f); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &HeldError{Target: target, Path: path, Holder: readHolder(path)}
			}
			return nil, lockError(path, err)
		}
		// A holder removes its lock file before it unlocks it (Release).
		// If the name no longer leads to the file locked here, the lock
		// guards a removed file: try again with the file the name leads
		// to now.
		if same(f, path) {
			l := &Lock{path: path, f: f}
			if err := l.record(command); err != nil {
				l.Release()
				return nil, err
			}
			return l, nil
		}
		f.Close()
		if attempt == 100 {
			return nil, fmt.Errorf("filelock: %s keeps being replaced while it is locked", path)
		}
	}
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// record writes the holder into the lock file and syncs it, so that a
// process on another NFS client reads it too.
func (l *Lock) record(command string) error {
	host, _ := os.Hostname()
	b, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC().Truncate(time.Second), Command: command})
	b = append(b, '\n')
	err := l.f.Truncate(0)
	if err == nil {
		_, err = l.f.WriteAt(b, 0)
	}
	if err == nil {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("filelock: writing %s: %w", l.path, err)
	}
	return nil
}

// readHolder reads who holds path. A holder writes its name right after
// it takes the lock; an empty file means it is doing so, so the read is
// retried for a moment.
func readHolder(path string) Holder {
	var h Holder
	for range 40 {
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &h) == nil && h.PID != 0 {
			return h
		}
		time.Sleep(25 * time.Millisecond)
	}
	return Holder{}
}

func lockError(path string, err error) error {
	for _, e := range []error{syscall.ENOLCK, syscall.ENOSYS, syscall.EOPNOTSUPP} {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: locking %s: %w: exclusive use of the output cannot be guaranteed here (Lustre: mount with -o flock; NFS: the share needs working locks, NFSv4 or NFSv3 with lockd)", ErrUnsupported, path, err)
		}
	}
	return fmt.Errorf("filelock: locking %s: %w", path, err)
}
