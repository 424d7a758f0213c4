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

// The tests lend the fleet worker/sim's replicas, as package bench does
// for the program.
func init() {
	RegisterSimulator(func(spec string) ([]scheduler.Replica, error) {
		reps, err := sim.FromSpec(spec)
		out := make([]scheduler.Replica, len(reps))
		for i, r := range reps {
			out[i] = r
		}
		return out, err
	})
}

// TestSimulatedNeedsASimulator: without one registered (a build that does
// not link the benchmark harness), "sim:..." is a device selection error
// that says so.
func TestSimulatedNeedsASimulator(t *testing.T) {
	saved := simulator
	defer func() { simulator = saved }()
	simulator = nil
	_, err := Start(context.Background(), Options{Devices: "sim:2"}, nil)
	if !errors.Is(err, gpu.ErrSelection) || !strings.Contains(err.Error(), "no simulated devices") {
		t.Fatalf("Start(sim:2) without a simulator: %v", err)
	}
}
