package metrics

import (
	"fmt"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"qa-shard/gpu"
)

var gpuLabels = []string{"gpu", "uuid"}

var (
	descUtil = prometheus.NewDesc(Namespace+"_gpu_utilization_ratio",
		"Fraction of the driver's last sample period the GPU was busy.", gpuLabels, nil)
	descMem = prometheus.NewDesc(Namespace+"_gpu_memory_used_bytes",
		"GPU memory in use.", gpuLabels, nil)
	descTemp = prometheus.NewDesc(Namespace+"_gpu_temperature_celsius",
		"GPU temperature.", gpuLabels, nil)
	descPower = prometheus.NewDesc(Namespace+"_gpu_power_watts",
		"GPU power draw.", gpuLabels, nil)
	descThrottled = prometheus.NewDesc(Namespace+"_gpu_throttled",
		"1 if the clocks are held back by a thermal or power reason (gpu.ThrottleMask), else 0.", gpuLabels, nil)
	descReasons = prometheus.NewDesc(Namespace+"_gpu_clock_event_reasons",
		"NVML clocks-event reasons bitmask (nvmlClocksEventReasons).", gpuLabels, nil)
	descHealth = prometheus.NewDesc(Namespace+"_gpu_health_events_total",
		"Health events (critical Xid, double-bit ECC, GPU lost) reported for the GPU during the run; its replicas retire at the first.", gpuLabels, nil)
)

// gpuCollector reads the GPU source at every scrape.
type gpuCollector struct {
	source func() func() []gpu.Sample
}

func (c *gpuCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUtil, descMem, descTemp, descPower, descThrottled, descReasons, descHealth} {
		ch <- d
	}
}

func (c *gpuCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.source()
	if f == nil {
		return
	}
	seen := map[int]bool{}
	for _, s := range f() {
		// A zero At is a GPU never read yet (the sampler's Latest before its
		// first tick): its zero fields would read as an idle, cold GPU.
		// A repeated index would make the whole scrape fail on duplicate
		// series, so only its first reading counts.
		if s.At.IsZero() || seen[s.Index] {
			continue
		}
		seen[s.Index] = true
		collectSample(ch, s)
	}
}

// collectSample emits the readings of s that the GPU reported; the sampler
// marks the others -1 (and names them in Unavailable), and a missing series
// is the honest way to say "not reported".
func collectSample(ch chan<- prometheus.Metric, s gpu.Sample) {
	labels := []string{fmt.Sprintf("gpu%d", s.Index), s.UUID}
	emit := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if s.UtilPercent >= 0 {
		emit(descUtil, float64(s.UtilPercent)/100)
	}
	ch <- prometheus.MustNewConstMetric(descHealth, prometheus.CounterValue, float64(s.HealthEvents), labels...)
	if s.MemUsed >= 0 {
		emit(descMem, float64(s.MemUsed))
	}
	if s.TempC >= 0 {
		emit(descTemp, float64(s.TempC))
	}
	if s.PowerW >= 0 {
		emit(descPower, s.PowerW)
	}
	// ClockReasons has no -1: an unreadable bitmask stays 0, which would
	// claim "not throttled", so only the Unavailable list tells.
	if !slices.Contains(s.Unavailable, gpu.MetricClockReasons) && !slices.Contains(s.Unavailable, gpu.MetricHandle) {
		throttled := 0.0
		if s.Throttled() {
			throttled = 1
		}
		emit(descThrottled, throttled)
		emit(descReasons, float64(s.ClockReasons))
	}
}
