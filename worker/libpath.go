package worker

import (
	"os"
	"path/filepath"
)

// LibName is the file name of ONNX Runtime's shared library.
const LibName = "libonnxruntime.so.1"

// Where the library is looked for beside the binary, relative to its
// folder: `make install`'s layout (PREFIX/bin/qa-shard,
// PREFIX/lib/qa-shard/), then the build tree's (build/bin/qa-shard,
// build/ort/).
var besideBinary = []struct{ rel, from string }{
	{filepath.Join("..", "lib", "qa-shard", LibName), "installed beside the binary (lib/qa-shard)"},
	{filepath.Join("..", "ort", LibName), "the build tree beside the binary (build/ort, from `make ort`)"},
}

// Found is the ONNX Runtime library a run would load and why that one.
type Found struct {
	Path string `json:"path"` // "" when none was found
	From string `json:"from"` // "--ort-lib", "$QA_SHARD_ORT_LIB", or where beside the binary
}

// locateLib finds the ONNX Runtime library: flagValue when set; else
// $QA_SHARD_ORT_LIB; else the first of besideBinary that exists, relative
// to the executable (symbolic links to it resolved).
func locateLib(flagValue string) Found {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return locate(flagValue, os.Getenv(EnvORTLib), exe)
}

// locate is Locate given the environment variable's value and the
// executable's path.
func locate(flagValue, env, exe string) Found {
	if flagValue != "" {
		return Found{Path: flagValue, From: "--ort-lib"}
	}
	if env != "" {
		return Found{Path: env, From: "$" + EnvORTLib}
	}
	if exe == "" {
		return Found{}
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	for _, b := range besideBinary {
		p := filepath.Join(filepath.Dir(exe), b.rel)
		if _, err := os.Stat(p); err == nil {
			return Found{Path: filepath.Clean(p), From: b.from}
		}
	}
	return Found{}
}

// FindLib is the ONNX Runtime library to Init with (Locate's path; ""
// when none was found, which Init reports).
func FindLib(flagValue string) string {
	return locateLib(flagValue).Path
}
