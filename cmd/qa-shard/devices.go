package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"qa-shard/fleet"
	"qa-shard/gpu"
)

// devicesCmd prints the GPUs NVML sees, numbered as nvidia-smi numbers them,
// and what CUDA_VISIBLE_DEVICES and the default --devices make of them.
// Hidden flags for scripts/gpu-check.sh: --sample D prints telemetry for D,
// --compare-smi FILE checks the list against nvidia-smi's CSV.
func devicesCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard devices", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	sample := fs.Duration("sample", 0, "")
	every := fs.Duration("sample-interval", time.Second, "")
	compare := fs.String("compare-smi", "", "")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: qa-shard devices [--json]\n\nLists the GPUs NVML sees (nvidia-smi's numbering) and what --devices all would use.\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	n, err := gpu.OpenSystem()
	var found []gpu.Device
	driver := ""
	if err == nil {
		defer n.Close()
		driver = n.DriverVersion()
		found, err = n.Devices()
	}
	if *compare != "" {
		return compareCmd(found, err, *compare)
	}
	if err := fleet.WriteInventory(os.Stdout, found, err, driver, os.LookupEnv, *asJSON); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices: %v\n", err)
		return exitInternal
	}
	if *sample > 0 {
		if n == nil {
			fmt.Fprintf(os.Stderr, "qa-shard devices --sample: %s\n", fleet.NoDriverLine)
			return exitInternal
		}
		log, err := newLogger("console", "info")
		if err != nil {
			fmt.Fprintf(os.Stderr, "qa-shard devices: %v\n", err)
			return exitInternal
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		ctx, cancel := context.WithTimeout(ctx, *sample)
		defer cancel()
		fleet.Sample(ctx, os.Stdout, n, found, *every, log)
	}
	return exitOK
}

// compareCmd checks discovery against nvidia-smi's
// --query-gpu=index,uuid,pci.bus_id --format=csv,noheader output.
func compareCmd(found []gpu.Device, foundErr error, path string) int {
	if foundErr != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", foundErr)
		return exitInternal
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	if err := fleet.CompareSMI(os.Stdout, found, f); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", err)
		return exitInternal
	}
	return exitOK
}
