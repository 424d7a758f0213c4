package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"qa-shard/internal/testenv"
	"qa-shard/internal/testmodels"
)

// envAsMain makes the test binary run as qa-shard itself, so process-level
// tests (signals, SIGKILL) need no separate build.
const envAsMain = "QA_SHARD_TEST_AS_MAIN"

var (
	ortLib    string
	modelsDir string
	setupErr  error
)

// TestMain generates the tiny models once per test binary; every test
// that needs one fails with setupErr if that was impossible.
func TestMain(m *testing.M) {
	if os.Getenv(envAsMain) == "1" {
		// A child started by startChild: be the qa-shard command.
		os.Exit(run(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "qa-shard-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	modelsDir = dir
	if ortLib, setupErr = testenv.ORTLib(); setupErr == nil {
		setupErr = testmodels.Generate(dir)
	}
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
	stderrMu.Lock()
	defer stderrMu.Unlock()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	out := make(chan []byte)
	go func() {
		var buf []byte
		b := make([]byte, 64<<10)
		for {
			n, err := r.Read(b)
			buf = append(buf, b[:n]...)
			if err != nil {
				out <- buf
				return
			}
		}
	}()
	code := run(append([]string{"--ort-lib", ortLib, "--log-format", "json", "--progress-interval", "1h"}, args...))
	w.Close()
	os.Stderr = saved
	return code, string(<-out)
}
