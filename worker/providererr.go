package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// gpuBuildHint says what a GPU run needs: ONNX Runtime's GPU providers of
// the same version as the core library, and the CUDA 13 libraries that the
// build `make gpu-kit` bundles (ONNX Runtime 1.29.0) was linked against.
const gpuBuildHint = "use a GPU build of ONNX Runtime 1.24 or newer whose provider libraries match its version " +
	"(`make install-gpu PREFIX=DIR` installs qa-shard beside one, 1.29.0 built for CUDA 13, found with no flag; `make ort-gpu` only fetches it), " +
	"with CUDA 13's libraries installed (" + cudaLibs + "; cuDNN 9 for TensorRT), or point --ort-lib or QA_SHARD_ORT_LIB at another build's libonnxruntime.so; " +
	"`qa-shard devices` says which library and providers a run would use and what they lack"

// cudaLibs are the libraries the CUDA provider of that build needs besides
// the driver's libcuda.so.1.
const cudaLibs = "libcudart.so.13, libcublas.so.13, libcublasLt.so.13, libcurand.so.10"

// missingLib finds the library the dynamic loader could not open.
var missingLib = regexp.MustCompile(`([A-Za-z0-9_.+-]+\.so[.0-9]*): cannot open shared object file`)

// providerError turns ONNX Runtime's text into what to do about it.
func providerError(name string, err error) error {
	msg := err.Error()
	lib := os.Getenv(EnvORTLib)
	if initLib != "" {
		lib = initLib
	}
	if m := missingLib.FindStringSubmatch(msg); m != nil && !strings.HasPrefix(m[1], "libonnxruntime_providers") {
		return fmt.Errorf("%w: the %s execution provider could not be enabled: it needs %s, which the dynamic loader cannot find: "+
			"install CUDA 13's libraries (%s; cuDNN 9 for TensorRT) or add their folders to LD_LIBRARY_PATH "+
			"(Python's nvidia-* wheels keep them under site-packages/nvidia/); ONNX Runtime said: %s",
			ErrConfig, name, m[1], cudaLibs, firstLine(msg))
	}
	if strings.Contains(msg, "providers_shared") || strings.Contains(msg, "Failed to load") {
		return fmt.Errorf("%w: the %s execution provider could not be enabled: the ONNX Runtime library %s has no GPU providers beside it "+
			"(libonnxruntime_providers_shared.so and libonnxruntime_providers_cuda.so are missing from %s; the CPU build from `make ort` has none): %s",
			ErrConfig, name, lib, filepath.Dir(lib), gpuBuildHint)
	}
	return fmt.Errorf("%w: the %s execution provider could not be enabled (%v): %s", ErrConfig, name, firstLine(msg), gpuBuildHint)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
