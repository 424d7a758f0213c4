package fleet

import (
	"fmt"
	"strings"

	"qa-shard/scheduler"
)

// Simulator builds the simulated replicas a "sim:..." --devices spec
// describes. Package fleet does not link simulated devices itself: the
// benchmark harness (package bench, which measures the scheduler on
// them) registers worker/sim's, and with it the tests that run commands
// on simulated devices.
type Simulator func(spec string) ([]scheduler.Replica, error)

var simulator Simulator

// RegisterSimulator makes "sim:..." specs build replicas with s.
func RegisterSimulator(s Simulator) { simulator = s }

// isSimulated says whether a --devices spec asks for simulated replicas.
func isSimulated(devices string) bool {
	s := strings.TrimSpace(devices)
	return s == "sim" || strings.HasPrefix(s, "sim:")
}

func simulated(spec string) ([]scheduler.Replica, error) {
	if simulator == nil {
		return nil, fmt.Errorf("--devices %s: this build has no simulated devices", spec)
	}
	return simulator(spec)
}
