package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"

	"qa-shard/gpu"
	"qa-shard/scheduler"
	"qa-shard/worker/sim"
)

// simulate lends the fleet worker/sim's replicas, as package bench does
// for the program.
func simulate(spec string) ([]scheduler.Replica, error) {
	reps, err := sim.FromSpec(spec)
	out := make([]scheduler.Replica, len(reps))
	for i, r := range reps {
		out[i] = r
	}
	return out, err
}

// TestSimulatedNeedsASimulator: without one set by the caller, "sim:..."
// is a device selection error that says so.
func TestSimulatedNeedsASimulator(t *testing.T) {
	_, err := Start(context.Background(), Options{Devices: "sim:2"}, nil)
	if !errors.Is(err, gpu.ErrSelection) || !strings.Contains(err.Error(), "no simulated devices") {
		t.Fatalf("Start(sim:2) without a simulator: %v", err)
	}
}
