// Package testtree records what a folder holds, for tests that require a
// command to leave a folder as it was: every file with the SHA-256 of its
// bytes, every folder and link, and what changed between two records.
package testtree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Tree is what a folder holds: each path below it (relative) to the
// SHA-256 of the file's bytes, "folder", or "link to <target>".
type Tree map[string]string

// Of records dir (links are not followed).
func Of(dir string) (Tree, error) {
	m := Tree{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.IsDir():
			m[rel] = "folder"
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			to, err := os.Readlink(path)
			m[rel] = "link to " + to
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		m[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return m, err
}

// Diff says, sorted, what differs from t in later: paths changed, gone or
// appeared; none when the folder holds what it held.
func (t Tree) Diff(later Tree) []string {
	var diff []string
	for k, v := range t {
		switch w, ok := later[k]; {
		case !ok:
			diff = append(diff, k+" went")
		case w != v:
			diff = append(diff, fmt.Sprintf("%s changed (%s, was %s)", k, w, v))
		}
	}
	for k := range later {
		if _, ok := t[k]; !ok {
			diff = append(diff, k+" appeared")
		}
	}
	slices.Sort(diff)
	return diff
}
