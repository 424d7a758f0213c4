// Package version is `qa-shard version`: this build's version and Go, the
// ONNX Runtime library a run would load, and the CPU with the instruction
// set that decides its int8 kernels.
package version

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/isa"
	"qa-shard/worker"
)

// Run is `qa-shard version` (also `qa-shard --version`): it prints
// build, this build's version (main's, set at build time), and what a run
// would use.
func Run(args []string, build string) error {
	fs := pflag.NewFlagSet("qa-shard version", pflag.ContinueOnError)
	ortLib := fs.String("ort-lib", "", "the ONNX Runtime library to report, as a run's --ort-lib (default: $QA_SHARD_ORT_LIB, else the one installed beside this binary)")
	if err := cli.Parse(fs, args, "Usage: qa-shard version [--ort-lib PATH]   (or qa-shard --version)\n\nPrints this build's version and Go, the ONNX Runtime library a run would load\n(its version, path and execution providers), and this CPU with the instruction\nset that decides its int8 kernels (AVX2, AVX-512, AVX-512 VNNI, AVX-VNNI or AMX)."); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	writeVersion(os.Stdout, build, worker.Describe(*ortLib))
	return nil
}

// writeVersion prints what Run reports, one "name: value" line
// each after the first (scripts read the cpu line).
func writeVersion(w io.Writer, build string, lib worker.Library) {
	fmt.Fprintf(w, "qa-shard %s\n", build)
	fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	switch {
	case lib.Path == "":
		fmt.Fprintf(w, "onnxruntime: none found: %s\n", lib.LoadErr)
	case lib.LoadErr != "":
		fmt.Fprintf(w, "onnxruntime: %s (%s) cannot be loaded: %s\n", lib.Path, lib.From, lib.LoadErr)
	default:
		fmt.Fprintf(w, "onnxruntime: %s, %s (%s)\n", lib.Version, lib.Path, lib.From)
	}
	if lib.Path != "" {
		fmt.Fprintf(w, "providers: %s\n", lib.ProvidersLine())
	}
	fmt.Fprintf(w, "cpu: %s, %s\n", isa.CPUName(), isa.Detect())
}
