package merge

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Every output is written under a temporary name beside its destination
// and renamed into place once complete and synced; an output it replaces
// (--overwrite) is first renamed aside, and removed only once the new one
// is in place. The names are hidden and say whose they are:
//
//	.<name>.qa-shard-merge-<random>      an output being written
//	.<name>.qa-shard-replaced-<random>   the output it replaces, set aside
//
// A merge that fails puts back what it set aside and removes what it
// wrote. One that is killed leaves such names, which the next merge into
// the same output (it holds the output's lock) settles first: an output
// set aside goes back into place when nothing took its place, and is
// removed when the new one did; a partial output is removed.

const (
	writingTag  = ".qa-shard-merge-"
	replacedTag = ".qa-shard-replaced-"
)

// tempName is a new hidden name beside target, tagged tag.
func tempName(target, tag string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+tag+hex.EncodeToString(b))
}

// leftovers lists what earlier merges into target left, by tag.
func leftovers(target string) (writing, replaced []string, err error) {
	dir, base := filepath.Dir(target), "."+filepath.Base(target)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, base+writingTag):
			writing = append(writing, filepath.Join(dir, name))
		case strings.HasPrefix(name, base+replacedTag):
			replaced = append(replaced, filepath.Join(dir, name))
		}
	}
	return writing, replaced, nil
}

// settle puts target's leftovers in order (see above) before a merge
// into it starts.
func (p *plan) settle(target string) error {
	writing, replaced, err := leftovers(target)
	if err != nil {
		return err
	}
	for _, w := range writing {
		if err := p.step("remove the unfinished " + w); err != nil {
			return err
		}
		if err := os.RemoveAll(w); err != nil {
			return fmt.Errorf("removing %s, left by a merge that was stopped: %w", w, err)
		}
	}
	for _, r := range replaced {
		_, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := p.step("put back " + r); err != nil {
				return err
			}
			if err := os.Rename(r, target); err != nil {
				return fmt.Errorf("putting back %s, set aside by a merge that was stopped: %w", r, err)
			}
		case err != nil:
			return err
		default:
			if err := p.step("remove the replaced " + r); err != nil {
				return err
			}
			if err := os.RemoveAll(r); err != nil {
				return fmt.Errorf("removing %s, replaced by a merge that was stopped: %w", r, err)
			}
		}
	}
	return nil
}

// replacement is one output written under temp, to be renamed to target.
type replacement struct {
	target, temp string
	aside        string // the output it replaced, set aside; "" for none
	placed       bool
}

// place renames every output into place, in order, setting aside what
// each replaces; after a failure it puts everything back as it was and
// returns the failure. The caller removes the temporary names left.
func (p *plan) place(reps []*replacement) (err error) {
	defer func() {
		if err != nil {
			err = errors.Join(err, unplace(reps))
		}
	}()
	for _, r := range reps {
		if _, err := os.Lstat(r.target); err == nil {
			r.aside = tempName(r.target, replacedTag)
			if err := p.step("set aside " + r.target); err != nil {
				return err
			}
			if err := os.Rename(r.target, r.aside); err != nil {
				r.aside = ""
				return fmt.Errorf("setting %s aside to replace it: %w", r.target, err)
			}
		}
		if err := p.step("rename into place " + r.target); err != nil {
			return err
		}
		if err := os.Rename(r.temp, r.target); err != nil {
			return fmt.Errorf("renaming the merged %s into place: %w", r.target, err)
		}
		r.placed = true
		if err := syncDir(filepath.Dir(r.target)); err != nil {
			return err
		}
	}
	return nil
}

// unplace undoes place: each output placed goes back to its temporary
// name, and what it replaced back into place.
func unplace(reps []*replacement) error {
	var errs []error
	for i := len(reps) - 1; i >= 0; i-- {
		r := reps[i]
		if r.placed {
			if err := os.Rename(r.target, r.temp); err != nil {
				errs = append(errs, fmt.Errorf("taking the merged %s back out: %w", r.target, err))
				continue
			}
			r.placed = false
		}
		if r.aside != "" {
			if err := os.Rename(r.aside, r.target); err != nil {
				errs = append(errs, fmt.Errorf("putting %s back (it is at %s; the next merge into it puts it back): %w", r.target, r.aside, err))
				continue
			}
			r.aside = ""
		}
	}
	return errors.Join(errs...)
}

// dropReplaced removes the outputs set aside, once every new one is in
// place.
func (p *plan) dropReplaced(reps []*replacement) error {
	for _, r := range reps {
		if r.aside == "" {
			continue
		}
		if err := p.step("remove the replaced " + r.aside); err != nil {
			return err
		}
		if err := os.RemoveAll(r.aside); err != nil {
			return fmt.Errorf("removing the replaced %s (at %s; the next merge into it removes it): %w", r.target, r.aside, err)
		}
	}
	return nil
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// step calls the test hook, if any.
func (p *plan) step(what string) error {
	if p.opt.Step == nil {
		return nil
	}
	return p.opt.Step(what)
}
