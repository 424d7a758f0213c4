// Package mecabtest tells a test whether this machine has what MeCab's
// tests need: libmecab and the system dictionaries they name. Missing,
// the test skips with one line naming the Debian package and `make deps`,
// or fails under CI=true (testenv.Need).
package mecabtest

import (
	"fmt"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/tokenizer/mecab"
)

// Packages are the Debian packages of libmecab and of the system
// dictionaries tests use, by the folder name mecab.SystemFolders takes.
var Packages = map[string]string{
	"libmecab":    "libmecab2",
	"ipadic-utf8": "mecab-ipadic-utf8",
	"unidic":      "unidic-mecab",
}

// how is where a missing package comes from.
func how(pkg string) string {
	return fmt.Sprintf("install Debian's %s (`make deps` as root installs every system package the tests use)", pkg)
}

// check is nil when libmecab loads and every dictionary named (by its
// system folder name: "ipadic-utf8", "unidic") is installed; else an
// error testenv.Need skips on.
func check(dictionaries ...string) error {
	if _, err := mecab.Load(""); err != nil {
		return testenv.Absent("libmecab (MeCab's C library)", how(Packages["libmecab"]), nil)
	}
	for _, d := range dictionaries {
		if len(mecab.SystemFolders(d)) == 0 {
			pkg, ok := Packages[d]
			if !ok {
				pkg = "the package of the MeCab dictionary " + d
			}
			return testenv.Absent("the MeCab system dictionary "+d, how(pkg), nil)
		}
	}
	return nil
}

// Require stops t (skip, or fail under CI=true) unless Check passes.
func Require(t testing.TB, dictionaries ...string) {
	t.Helper()
	testenv.Need(t, check(dictionaries...))
}
