// Package gpu owns device selection. In this version it understands CPU
// replicas only ("cpu", "cpu:N"); NVML discovery and GPU selection follow.
package gpu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSelection marks a --devices value that cannot be satisfied.
var ErrSelection = errors.New("device selection")

// Device is one place a replica runs.
type Device struct {
	Kind  string // "cpu"
	Index int    // replica index within its kind
}

// Name is how logs and summaries call the device.
func (d Device) Name() string { return fmt.Sprintf("%s:%d", d.Kind, d.Index) }

// Select parses a --devices value into the devices to start replicas on.
func Select(spec string) ([]Device, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "cpu":
		return cpus(1), nil
	case strings.HasPrefix(spec, "cpu:"):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "cpu:"))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("%w: --devices %q: expected cpu:N with N between 1 and 256", ErrSelection, spec)
		}
		return cpus(n), nil
	case spec == "":
		return nil, fmt.Errorf("%w: --devices is empty: use cpu or cpu:N", ErrSelection)
	}
	return nil, fmt.Errorf("%w: --devices %q: this build runs on the CPU only (cpu or cpu:N); GPU selection is not implemented yet", ErrSelection, spec)
}

func cpus(n int) []Device {
	out := make([]Device, n)
	for i := range out {
		out[i] = Device{Kind: "cpu", Index: i}
	}
	return out
}
