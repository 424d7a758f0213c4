package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"qa-shard/internal/errkind"
	"qa-shard/internal/filelock"
)

// Sentinels, found with errors.Is.
var (
	// ErrUnwritable: an output's folder is missing, read-only or not
	// writable by this user; found before anything expensive starts.
	ErrUnwritable = errkind.NewUser("the output cannot be written")
	// ErrStorage: the storage failed while the outputs were written (no
	// space left, quota exceeded, an I/O error, a file system turned
	// read-only). What the journal vouches for is intact: once the
	// storage is fixed, --resume continues.
	ErrStorage = errkind.NewResumable("the storage failed")
)

// storageErrnos are failures of the storage rather than of the program.
var storageErrnos = []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS}

// Fault marks err with ErrStorage when the storage caused it; any other
// error (one already marked ErrUnwritable too) is returned as it is.
func Fault(err error) error {
	if err == nil || errors.Is(err, ErrStorage) || errors.Is(err, ErrUnwritable) {
		return err
	}
	for _, e := range storageErrnos {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", ErrStorage, err)
		}
	}
	return err
}

// Claim checks, before a model is loaded, that the outputs (the answers
// file and the logits folder; "" and "-" are skipped) can be written, and
// takes each one's exclusive lock (see package filelock) for the life of
// the run, unless lock is false. A held lock is a *filelock.HeldError
// naming the holder; a folder that cannot be written is ErrUnwritable.
func Claim(answers, logits, command string, lock bool) (filelock.Set, error) {
	if !lock {
		for _, t := range []string{answers, logits} {
			if err := probe(t); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	s, err := filelock.AcquireAll(command, answers, logits)
	if err != nil {
		return nil, unwritable(err)
	}
	return s, nil
}

// probe creates and removes a file beside target.
func probe(target string) error {
	if target == "" || target == "-" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(strings.TrimRight(target, "/")), ".qa-shard-probe-*")
	if err != nil {
		return unwritable(fmt.Errorf("creating a file beside %s: %w", target, err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwritable marks a file that could not be created (missing or read-only
// folder, no permission) with ErrUnwritable, and a full or failing disk
// with ErrStorage.
func unwritable(err error) error {
	var pe *fs.PathError
	if errors.Is(err, filelock.ErrHeld) || !errors.As(err, &pe) || pe.Op != "open" {
		return err
	}
	// A read-only file system at the start is the folder's problem, not
	// a storage failure to wait out.
	if f := Fault(err); f != err && !errors.Is(err, syscall.EROFS) { //nolint:errorlint // identity: did Fault mark err?
		return f
	}
	return fmt.Errorf("%w: %w: the output's folder must exist and be writable; choose another --output or fix its permissions", ErrUnwritable, err)
}

// denied marks a refusal to write an output that exists (its permissions,
// a read-only file system) with ErrUnwritable: the user fixes it, as an
// unwritable folder at the start.
func denied(err error) error {
	if err == nil || errors.Is(err, ErrUnwritable) || !(errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		return err
	}
	return fmt.Errorf("%w: %w: fix its permissions, or choose another --output", ErrUnwritable, err)
}
