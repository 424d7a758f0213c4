package testmodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// ortErr is why ONNX Runtime is unusable in this test binary, if it is.
// Tests that need the runtime fail with it; the pure tests still run.
var ortErr error

func TestMain(m *testing.M) {
	ortErr = initORT()
	code := m.Run()
	if ortErr == nil {
		ort.DestroyEnvironment()
	}
	os.Exit(code)
}

// ortLibPath prefers QA_SHARD_ORT_LIB (the Makefile exports it) and falls
// back to the library `make ort` puts under build/ at the repository root.
func ortLibPath() (string, error) {
	if p := os.Getenv("QA_SHARD_ORT_LIB"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "build", "ort", "libonnxruntime.so.1"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

func initORT() error {
	lib, err := ortLibPath()
	if err != nil {
		return fmt.Errorf("locate ONNX Runtime: %w", err)
	}
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("ONNX Runtime library: %w (run `make ort` or set QA_SHARD_ORT_LIB)", err)
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		return fmt.Errorf("initialize ONNX Runtime from %s: %w", lib, err)
	}
	return nil
}

func requireORT(t testing.TB) {
	t.Helper()
	if ortErr != nil {
		t.Fatal(ortErr)
	}
}
