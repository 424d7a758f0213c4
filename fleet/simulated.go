package fleet

import (
	"fmt"

	"qa-shard/scheduler"
)

// Simulator builds the simulated replicas a "sim:..." --devices spec
// describes. Package fleet does not link simulated devices itself: its
// caller sets Options.Simulate (the benchmark harness, which measures the
// scheduler on worker/sim's replicas; main, which hands the harness's to
// the run for the tests that run commands on simulated devices).
type Simulator func(spec string) ([]scheduler.Replica, error)

// simulated builds the replicas of spec with o's simulator.
func (o Options) simulated(spec string) ([]scheduler.Replica, error) {
	if o.Simulate == nil {
		return nil, fmt.Errorf("--devices %s: this build has no simulated devices", spec)
	}
	return o.Simulate(spec)
}
