package testmodel

import (
	"fmt"
	"os"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/testing/testenv"
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

func initORT() error {
	lib, err := testenv.ORTLib()
	if err != nil {
		return err
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
