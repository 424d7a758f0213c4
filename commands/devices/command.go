// Package devices is `qa-shard devices`: it prints the GPUs NVML sees,
// numbered as nvidia-smi numbers them, what CUDA_VISIBLE_DEVICES and the
// default --devices make of them, and the ONNX Runtime library a run
// would load.
package devices

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
)

// Run is `qa-shard devices`: it prints the GPUs NVML sees, numbered as
// nvidia-smi numbers them, and what CUDA_VISIBLE_DEVICES and the default
// --devices make of them.
func Run(args []string) error {
	return List(args, openNVML, os.Stdout)
}

// List is Run with NVML and the output as parameters, for tests.
// Hidden flags for scripts/gpu-check.sh: --sample D prints telemetry for D,
// --compare-smi FILE checks the list against nvidia-smi's CSV.
func List(args []string, open func() (NVML, error), w io.Writer) error {
	fs := pflag.NewFlagSet("qa-shard devices", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	sample := fs.Duration("sample", 0, "print GPU telemetry and health for this long")
	every := fs.Duration("sample-interval", time.Second, "interval of --sample")
	ortLib := fs.String("ort-lib", "", "the ONNX Runtime library to describe, as a run's --ort-lib (default: $QA_SHARD_ORT_LIB, else the one installed beside this binary)")
	check := fs.Bool("check", false, "exit 2 when a run on the GPUs --devices selects would be refused (a CPU build of ONNX Runtime, CUDA libraries not found): for batch scripts")
	selectSpec := fs.String("devices", "all", "with --check: the run's --devices")
	compare := fs.String("compare-smi", "", "check the list against this file of nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader")
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel)
	for _, hidden := range []string{"sample", "sample-interval", "compare-smi"} {
		if err := fs.MarkHidden(hidden); err != nil {
			return err
		}
	}
	help := "Usage: qa-shard devices [--json] [--check [--devices SPEC]] [--ort-lib PATH]\n\nLists the GPUs NVML sees (nvidia-smi's numbering) and what --devices all would use,\nthen the ONNX Runtime library a run would load, its execution providers, and what\nwould stop a run on those GPUs (a CPU build, CUDA libraries the loader cannot find)."
	if err := cli.Parse(fs, args, help); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	o := options{JSON: *asJSON, Sample: *sample, Every: *every, SMI: *compare, ORTLib: *ortLib, Check: *check, Select: *selectSpec, Log: log}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return devices(ctx, w, open, o)
}
