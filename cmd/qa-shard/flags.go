package main

import (
	"fmt"
	"strings"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/internal/cli"
)

// The run command's options, flags and checks are package cli's; here is
// the top of its --help (with main's exit-code table) and the options of
// the fleet it starts.

// runHelp is the top of --help (the flags follow it), with main's table of
// exit codes.
func runHelp() string {
	var codes strings.Builder
	for _, c := range exitCodes {
		fmt.Fprintf(&codes, "  %-3d %s\n", c.code, c.meaning)
	}
	return cli.RunHelp(codes.String())
}

// fleetOptions are the settings of the replicas.
func fleetOptions(o *cli.RunOptions, log *zap.Logger) fleet.Options {
	return fleet.Options{Devices: o.Devices, Provider: o.Provider, ReplicasPerDevice: o.ReplicasPerDevice, Threads: o.Threads,
		FP16: o.FP16, GPUMemFraction: o.GPUMemFraction, TRTCacheDir: o.TRTCacheDir, MaxSeqLen: o.Settings.MaxSeqLen,
		MaxBatchTokens: o.MaxBatchTokens, Precision: o.Precision(), SampleInterval: o.GPUSampleInterval, TuneShare: o.TuneShare / 100, Log: log}
}
