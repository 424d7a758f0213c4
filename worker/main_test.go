package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testfixtures"
)

// childEnv marks a re-executed test binary that must not load ONNX
// Runtime before the test it runs (see TestInitMissingLibrary).
const childEnv = "QA_SHARD_WORKER_CHILD"

var (
	ortLib    string
	modelsDir string
	setupErr  error
)

// TestMain loads ONNX Runtime once and generates the tiny model variants;
// every test that needs them fails with setupErr if that was impossible.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "qa-shard-worker-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	modelsDir = dir
	setupErr = setup(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func setup(dir string) error {
	lib, err := testenv.ORTLib()
	if err != nil {
		return err
	}
	ortLib = lib
	if err := Init(lib); err != nil {
		return fmt.Errorf("worker.Init(%s): %w", lib, err)
	}
	return testfixtures.Generate(dir)
}

// model returns a generated model directory by variant name.
func model(t *testing.T, name string) string {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("test setup: %v", setupErr)
	}
	return filepath.Join(modelsDir, name)
}

func openModel(t *testing.T, name string) *Model {
	t.Helper()
	m, err := OpenModel(model(t, name))
	if err != nil {
		t.Fatalf("OpenModel(%s): %v", name, err)
	}
	return m
}

func newReplica(t *testing.T, name string) *Replica {
	t.Helper()
	r, err := NewReplica(openModel(t, name), ReplicaOptions{Name: "cpu:" + name, Threads: 1})
	if err != nil {
		t.Fatalf("NewReplica(%s): %v", name, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
