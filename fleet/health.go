package fleet

import (
	"sync"

	"qa-shard/gpu"
)

// healthCounts counts the health events the watcher reports per GPU, so
// the samples the metrics read carry them (gpu.Sample.HealthEvents).
type healthCounts struct {
	mu sync.Mutex
	by map[string]uint64 // GPU UUID (a MIG instance's parent) -> events
}

// add counts h against its GPU.
func (c *healthCounts) add(h gpu.Health) {
	uuid := h.UUID
	if h.Parent != "" {
		uuid = h.Parent
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]uint64{}
	}
	c.by[uuid]++
}

// apply sets each sample's HealthEvents to its GPU's count.
func (c *healthCounts) apply(ss []gpu.Sample) []gpu.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range ss {
		ss[i].HealthEvents = c.by[ss[i].UUID]
	}
	return ss
}
