package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testfixtures"
)

// envAsMain makes the test binary run as qa-shard itself, so process-level
// tests (signals, SIGKILL) need no separate build.
const envAsMain = "QA_SHARD_TEST_AS_MAIN"

var (
	ortLib    string
	modelsDir string
	setupErr  error
	// familiesErr is why the family models (tiny-roberta, ...) could not be made.
	familiesErr error
	// japaneseDir is the Japanese demo model's folder (testfixtures.
	// GenerateJapanese); japaneseErr why it could not be made.
	japaneseDir string
	japaneseErr error
)

// TestMain generates the tiny models once per test binary; every test
// that needs one fails with setupErr if that was impossible.
func TestMain(m *testing.M) {
	if os.Getenv(envAsMain) == "1" {
		// A child started by startChild: be the qa-shard command.
		installHooks()
		os.Exit(dispatch(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "qa-shard-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	modelsDir = dir
	// Runs measure their batch shape and cache it in the user's cache
	// directory: keep the tests' choices to themselves. The go command a
	// test runs (TestProductLinksNoHooks) keeps the user's build cache,
	// which would otherwise move with XDG_CACHE_HOME.
	if cache, err := os.UserCacheDir(); err == nil && os.Getenv("GOCACHE") == "" {
		err = os.Setenv("GOCACHE", filepath.Join(cache, "go-build"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if ortLib, setupErr = testenv.ORTLib(); setupErr == nil {
		setupErr = testfixtures.Generate(dir)
	}
	familiesErr = testfixtures.GenerateFamilies(dir)
	japaneseDir, japaneseErr = testfixtures.GenerateJapanese(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// model returns a generated model directory by variant name.
func model(t *testing.T, name string) string {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("test setup: %v", setupErr)
	}
	return filepath.Join(modelsDir, name)
}

var stderrMu sync.Mutex

// runCLI runs the command in-process and returns its exit code and what
// it printed on standard error.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := capture(t, func() int {
		return dispatch(append([]string{"--ort-lib", ortLib, "--log-format", "json", "--progress-interval", "1h"}, args...))
	})
	return code, stderr
}

// capture runs f with standard output and error redirected, and returns
// its result and what it printed on each.
func capture(t *testing.T, f func() int) (int, string, string) {
	t.Helper()
	stderrMu.Lock()
	defer stderrMu.Unlock()
	savedOut, savedErr := os.Stdout, os.Stderr
	outW, outC := pipe(t)
	errW, errC := pipe(t)
	os.Stdout, os.Stderr = outW, errW
	code := f()
	outW.Close()
	errW.Close()
	os.Stdout, os.Stderr = savedOut, savedErr
	return code, string(<-outC), string(<-errC)
}

// pipe returns the writing end of a pipe and what was written to it,
// delivered once the writer is closed.
func pipe(t *testing.T) (*os.File, <-chan []byte) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		out <- b
	}()
	return w, out
}

// messages checks that every line of stderr is one JSON object (the
// format is json, or auto and not a terminal) and returns their messages,
// one a line, so a test looks for a sentence as a person reads it.
func messages(t *testing.T, stderr string) string {
	t.Helper()
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m struct {
			Msg string `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("stderr line %d is not a JSON object: %v: %s", i+1, err, line)
			b.WriteString(line + "\n")
			continue
		}
		b.WriteString(m.Msg + "\n")
	}
	return b.String()
}
