package fleet

import (
	"testing"

	"qa-shard/gpu"
)

// TestHealthCounts: events count against their GPU (a MIG instance's
// against its parent GPU), and samples of other GPUs stay at 0.
func TestHealthCounts(t *testing.T) {
	var c healthCounts
	c.add(gpu.Health{UUID: "GPU-a", Xid: 79})
	c.add(gpu.Health{UUID: "MIG-1", Parent: "GPU-a", Xid: 48})
	c.add(gpu.Health{UUID: "GPU-b", Reason: "GPU lost"})
	got := c.apply([]gpu.Sample{{UUID: "GPU-a"}, {UUID: "GPU-b"}, {UUID: "GPU-c"}})
	for i, want := range []uint64{2, 1, 0} {
		if got[i].HealthEvents != want {
			t.Errorf("%s: %d events, want %d", got[i].UUID, got[i].HealthEvents, want)
		}
	}
}
