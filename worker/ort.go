package worker

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
)

// EnvORTLib names the environment variable that points at the ONNX Runtime
// shared library when --ort-lib is not given.
const EnvORTLib = "QA_SHARD_ORT_LIB"

var (
	initOnce sync.Once
	initErr  error
	initLib  string
)

// Init loads the ONNX Runtime shared library and creates the process-wide
// environment. It runs once; later calls return the first result, and a
// call with a different path is an error because ONNX Runtime cannot be
// loaded twice into one process.
func Init(libPath string) error {
	if libPath == "" {
		libPath = os.Getenv(EnvORTLib)
	}
	initOnce.Do(func() {
		initLib = libPath
		initErr = initialize(libPath)
	})
	if initErr == nil && libPath != initLib {
		return fmt.Errorf("ONNX Runtime is already loaded from %s; one process can load one library", initLib)
	}
	return initErr
}

func initialize(libPath string) error {
	if libPath == "" {
		return fmt.Errorf("%w: no ONNX Runtime library given: pass --ort-lib PATH or set %s (`make install PREFIX=DIR` installs qa-shard with it, found with no flag; `make ort` fetches the CPU build)", ErrConfig, EnvORTLib)
	}
	if _, err := os.Stat(libPath); err != nil {
		return fmt.Errorf("%w: ONNX Runtime library %s not found: pass --ort-lib PATH or set %s (`make install PREFIX=DIR` installs qa-shard with it, found with no flag; `make ort` fetches the CPU build)", ErrConfig, libPath, EnvORTLib)
	}
	ort.SetSharedLibraryPath(libPath)
	// ONNX Runtime's telemetry keeps a device id and a SQLite event store
	// in the user's home (~/.cache/Microsoft/DeveloperTools/.onnxruntime),
	// rewritten by every run, and tries to upload them: on a cluster's
	// shared home every rank would write one over NFS. It starts with the
	// environment, before DisableTelemetry can be called; only
	// ORT_DISABLE_TELEMETRY, read then, keeps it from starting.
	if _, set := os.LookupEnv("ORT_DISABLE_TELEMETRY"); !set {
		if err := os.Setenv("ORT_DISABLE_TELEMETRY", "1"); err != nil {
			return fmt.Errorf("turning ONNX Runtime's telemetry off: %w", err)
		}
	}
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("%w: ONNX Runtime library %s could not be loaded (it must be ONNX Runtime 1.24 or newer): %w", ErrConfig, libPath, err)
	}
	// And the events, for a library that reads no environment variable.
	if err := ort.DisableTelemetry(); err != nil {
		return fmt.Errorf("%w: ONNX Runtime's telemetry could not be turned off: %w", ErrConfig, err)
	}
	return nil
}

// Version reports the loaded ONNX Runtime version, or "" before Init.
func Version() string {
	if !ort.IsInitialized() {
		return ""
	}
	return ort.GetVersion()
}

// nativeQuiet: QuietNativeLog was called, so GPU sessions do not raise
// their own log level to Warning either (see setMode).
var nativeQuiet atomic.Bool

// QuietNativeLog limits ONNX Runtime's own logger, which writes plain text
// to standard error, to fatal messages: for JSON logs, where every line
// must be one object. Failures still reach the caller as Go errors. It
// does nothing before Init.
func QuietNativeLog() error {
	nativeQuiet.Store(true)
	if !ort.IsInitialized() {
		return nil
	}
	if err := ort.SetEnvironmentLogLevel(ort.LoggingLevelFatal); err != nil {
		return fmt.Errorf("setting ONNX Runtime's log level: %w", err)
	}
	return nil
}
