package bench

import (
	"qa-shard/scheduler"
	"qa-shard/worker/sim"
)

// Simulated devices are replicas, rebuilt on the scheduler's fault path as
// the program's sessions are, and timed by their simulated device.
var (
	_ scheduler.Replica     = (*sim.Replica)(nil)
	_ scheduler.DeviceTimer = (*sim.Replica)(nil)
)

// Simulated builds the simulated replicas of a "sim:..." --devices spec
// (fleet.Options.Simulate). The harness measures the scheduler on
// simulated devices (Scheduling, Inputs), so it is the one part of the
// program that links them; it lends them to the fleets it starts and, by
// main, to the run (the tests that run commands on simulated devices).
func Simulated(spec string) ([]scheduler.Replica, error) {
	reps, err := sim.FromSpec(spec)
	if err != nil {
		return nil, err
	}
	out := make([]scheduler.Replica, len(reps))
	for i, r := range reps {
		out[i] = r
	}
	return out, nil
}
