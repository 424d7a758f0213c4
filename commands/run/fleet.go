package run

import (
	"go.uber.org/zap"

	"qa-shard/fleet"
)

// fleetOptions are the settings of the replicas: the devices', the batch
// shapes' (p) and the longest window (maxSeqLen).
func fleetOptions(d deviceOptions, p pipelineOptions, maxSeqLen int, log *zap.Logger) fleet.Options {
	return fleet.Options{Devices: d.Devices, Provider: d.Provider, ReplicasPerDevice: d.ReplicasPerDevice, Threads: d.Threads,
		FP16: d.Precision == "fp16", GPUMemFraction: d.GPUMemFraction, TRTCacheDir: d.TRTCacheDir, MaxSeqLen: maxSeqLen,
		MaxBatchTokens: p.MaxBatchTokens, Precision: d.Precision, SampleInterval: d.GPUSampleInterval, TuneShare: p.TuneShare / 100, Log: log}
}
