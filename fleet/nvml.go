package fleet

import (
	"context"

	"qa-shard/gpu"
)

// nvmlSession is what a fleet asks of NVML (gpu.New's *gpu.NVML): the
// GPUs, their telemetry and health while the run lasts, and its end.
type nvmlSession interface {
	Devices() ([]gpu.Device, error)
	NewSampler(devices []gpu.Device, opts gpu.SamplerOptions) *gpu.Sampler
	WatchHealth(ctx context.Context, devices []gpu.Device, opts gpu.WatchOptions) <-chan gpu.Health
	Close() error
}

// openNVML opens the machine's NVML: nil and the error (gpu.ErrNoDriver
// on a machine without the driver) when it cannot.
func openNVML() (nvmlSession, error) {
	n, err := gpu.New()
	if err != nil {
		return nil, err
	}
	return n, nil
}
