package devices

import (
	"context"

	"qa-shard/gpu"
)

// NVML is what `qa-shard devices` asks of NVML (gpu.New's *gpu.NVML): the
// driver, the GPUs, their telemetry and health, and its end. List takes
// an opener of one, so tests give their own.
type NVML interface {
	DriverVersion() string
	Devices() ([]gpu.Device, error)
	NewSampler(devices []gpu.Device, opts gpu.SamplerOptions) *gpu.Sampler
	WatchHealth(ctx context.Context, devices []gpu.Device, opts gpu.WatchOptions) <-chan gpu.Health
	Close() error
}

// openNVML opens the machine's NVML: nil and the error (gpu.ErrNoDriver
// on a machine without the driver) when it cannot.
func openNVML() (NVML, error) {
	n, err := gpu.New()
	if err != nil {
		return nil, err
	}
	return n, nil
}
