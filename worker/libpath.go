package worker

import (
	"os"
	"path/filepath"
)

// FindLib is the ONNX Runtime library to Init with: flagValue when set;
// else "" when $QA_SHARD_ORT_LIB is set (Init reads it); else the library
// `make ort` puts beside `make build`'s binary (../ort/libonnxruntime.so.1
// from the executable), when it exists.
func FindLib(flagValue string) string {
	if flagValue != "" || os.Getenv(EnvORTLib) != "" {
		return flagValue
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(exe), "..", "ort", "libonnxruntime.so.1")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
