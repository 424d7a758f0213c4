package run

import (
	"go.uber.org/zap"

	"qa-shard/fleet"
)

// fleetOptions are the settings of the replicas.
func fleetOptions(o *options, log *zap.Logger) fleet.Options {
	return fleet.Options{Devices: o.Devices, Provider: o.Provider, ReplicasPerDevice: o.ReplicasPerDevice, Threads: o.Threads,
		FP16: o.FP16, GPUMemFraction: o.GPUMemFraction, TRTCacheDir: o.TRTCacheDir, MaxSeqLen: o.Settings.MaxSeqLen,
		MaxBatchTokens: o.MaxBatchTokens, Precision: o.Precision(), SampleInterval: o.GPUSampleInterval, TuneShare: o.TuneShare / 100, Log: log}
}
