package gpu

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// go-nvml links NVML with unresolved symbols allowed: calling a function
// the installed driver does not export (one newer than the driver, such as
// the clock-event reasons of R535) kills the process. Every call beyond the
// oldest core (init, count, handles, UUID, name, PCI info) is made only when
// the driver's library has its symbol; otherwise the metric is unavailable.
const (
	symComputeCapability = "nvmlDeviceGetCudaComputeCapability"
	symRemappedRows      = "nvmlDeviceGetRemappedRows"
	symClockEvents       = "nvmlDeviceGetCurrentClocksEventReasons"
	symClockThrottle     = "nvmlDeviceGetCurrentClocksThrottleReasons" // the older name of the same bits
)

var (
	symMIG    = []string{"nvmlDeviceGetMigMode", "nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex"}
	symEvents = []string{"nvmlEventSetCreate", "nvmlDeviceGetSupportedEventTypes", "nvmlDeviceRegisterEvents", "nvmlEventSetFree"}
)

// metricSymbols are the NVML functions each sampler metric calls (the clock
// reasons are handled apart: either of two names will do).
var metricSymbols = map[string]string{
	MetricUtilization:  "nvmlDeviceGetUtilizationRates",
	MetricMemory:       "nvmlDeviceGetMemoryInfo",
	MetricTemperature:  "nvmlDeviceGetTemperature",
	MetricPower:        "nvmlDeviceGetPowerUsage",
	MetricRemappedRows: symRemappedRows,
	MetricRetiredPages: "nvmlDeviceGetRetiredPagesPendingStatus",
}

// has says whether the driver's NVML exports every named function. Each
// lookup is made once.
func (n *NVML) has(names ...string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range names {
		ok, seen := n.symbols[s]
		if !seen {
			ok = lookup(n.lib, s)
			n.symbols[s] = ok
		}
		if !ok {
			return false
		}
	}
	return true
}

func lookup(lib Library, symbol string) bool {
	ext := lib.Extensions()
	return ext != nil && ext.LookupSymbol(symbol) == nil
}

// clockReasons reads the clock-event reasons through whichever name the
// driver exports; ok is false when it exports neither.
func (n *NVML) clockReasons(h nvml.Device) (reasons uint64, ret nvml.Return, ok bool) {
	switch {
	case n.has(symClockEvents):
		r, ret := h.GetCurrentClocksEventReasons()
		return r, ret, true
	case n.has(symClockThrottle):
		r, ret := h.GetCurrentClocksThrottleReasons()
		return r, ret, true
	}
	return 0, 0, false
}
