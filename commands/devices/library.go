package devices

import (
	"fmt"
	"io"
	"strings"

	"qa-shard/worker"
)

// gPUBuildHowTo is where a GPU build of ONNX Runtime comes from.
const gPUBuildHowTo = "get a GPU build of ONNX Runtime: `make install-gpu PREFIX=DIR` installs qa-shard with one (ONNX Runtime 1.29.0 for CUDA 13), " +
	"or point --ort-lib or QA_SHARD_ORT_LIB at the libonnxruntime.so.1 of another GPU build (docs/running.md, \"GPU nodes\")"

// cudaHowTo is what to do about CUDA libraries the loader cannot find.
const cudaHowTo = "load your site's CUDA 13 (e.g. `module load cuda/13.0`; cuDNN 9 too for TensorRT) or add the folders of those libraries to LD_LIBRARY_PATH; " +
	"libcuda.so.1 is the NVIDIA driver's own"

// libraryJSON is the "onnxruntime" part of devices --json.
type libraryJSON struct {
	worker.Library
	// GPUProblem is why a run on the GPUs --devices all selects would be
	// refused ("" when nothing stands in the way that can be seen
	// without running on them).
	GPUProblem string `json:"gpu_problem,omitempty"`
}

// gpuProblem is why a run on gpus GPUs with library l would be refused,
// as far as can be told without running on them, with what to do; ""
// when nothing can be seen standing in the way (or gpus is 0 and the
// library loads).
func gpuProblem(l worker.Library, gpus int) string {
	if l.LoadErr != "" {
		return l.LoadErr
	}
	if gpus == 0 {
		return ""
	}
	p := l.GPU()
	if p == nil {
		return fmt.Sprintf("the ONNX Runtime library %s is a CPU build: no GPU provider (libonnxruntime_providers_cuda.so) lies beside it; %s", l.Path, gPUBuildHowTo)
	}
	if !p.Ready() {
		return fmt.Sprintf("the %s provider (%s) needs %s, which the dynamic loader cannot find: %s", p.Name, p.File, strings.Join(p.Missing, ", "), cudaHowTo)
	}
	return ""
}

// writeLibrary prints the library part of devices' table.
func writeLibrary(w io.Writer, l libraryJSON) {
	if l.Path == "" {
		fmt.Fprintf(w, "\nONNX Runtime: none found: %s\n", l.LoadErr)
		return
	}
	if l.LoadErr != "" {
		fmt.Fprintf(w, "\nONNX Runtime: %s (%s) cannot be loaded: %s\n", l.Path, l.From, l.LoadErr)
	} else {
		fmt.Fprintf(w, "\nONNX Runtime %s: %s (%s)\n", l.Version, l.Path, l.From)
	}
	fmt.Fprintf(w, "providers: %s\n", l.ProvidersLine())
	if l.GPUProblem != "" {
		fmt.Fprintf(w, "a run on these GPUs would be refused: %s\n", l.GPUProblem)
	}
}
