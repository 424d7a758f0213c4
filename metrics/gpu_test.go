package metrics

import (
	"slices"
	"sync"
	"testing"
	"time"

	"qa-shard/gpu"
)

var sampled = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func TestGPUGauges(t *testing.T) {
	r := new(testID)
	r.SetGPUSource(func() []gpu.Sample {
		return []gpu.Sample{
			{Index: 0, UUID: "GPU-aaa", At: sampled, UtilPercent: 75, MemUsed: 1 << 30, TempC: 64, PowerW: 250.5,
				ClockReasons: 0x1 | 0x20, HealthEvents: 2}, // idle + SW thermal: throttled; two Xids
			{Index: 1, UUID: "GPU-bbb", At: sampled, UtilPercent: 0, MemUsed: 0, TempC: 30, PowerW: 60,
				ClockReasons: 0x1}, // idle only: not throttled
			// Only memory is reported.
			{Index: 3, UUID: "GPU-ccc", At: sampled, UtilPercent: -1, MemUsed: 2048, TempC: -1, PowerW: -1,
				Unavailable: []string{gpu.MetricClockReasons, gpu.MetricPower, gpu.MetricTemperature, gpu.MetricUtilization}},
			// The device handle could not be read: nothing is.
			{Index: 4, UUID: "GPU-ddd", At: sampled, UtilPercent: -1, MemUsed: -1, TempC: -1, PowerW: -1,
				Unavailable: []string{gpu.MetricHandle}},
			// Never read (the sampler's Latest before its first tick).
			{Index: 5, UUID: "GPU-eee"},
			// A repeated index: the first reading wins and the scrape still works.
			{Index: 0, UUID: "GPU-aaa", At: sampled, UtilPercent: 10, MemUsed: 1, TempC: 1, PowerW: 1},
		}
	})
	f := scrape(t, r)
	g0 := []string{"gpu", "gpu0", "uuid", "GPU-aaa"}
	expectValue(t, f, 0.75, "qa_shard_gpu_utilization_ratio", g0...)
	expectValue(t, f, 1<<30, "qa_shard_gpu_memory_used_bytes", g0...)
	expectValue(t, f, 64, "qa_shard_gpu_temperature_celsius", g0...)
	expectValue(t, f, 250.5, "qa_shard_gpu_power_watts", g0...)
	expectValue(t, f, 1, "qa_shard_gpu_throttled", g0...)
	expectValue(t, f, 0x21, "qa_shard_gpu_clock_event_reasons", g0...)
	expectValue(t, f, 2, "qa_shard_gpu_health_events_total", g0...)

	g1 := []string{"gpu", "gpu1", "uuid", "GPU-bbb"}
	expectValue(t, f, 0, "qa_shard_gpu_utilization_ratio", g1...) // 0 is a reading, not "unavailable"
	expectValue(t, f, 0, "qa_shard_gpu_throttled", g1...)
	expectValue(t, f, 1, "qa_shard_gpu_clock_event_reasons", g1...)
	expectValue(t, f, 0, "qa_shard_gpu_health_events_total", g1...) // a counter from the start

	g3 := []string{"gpu", "gpu3", "uuid", "GPU-ccc"}
	expectValue(t, f, 2048, "qa_shard_gpu_memory_used_bytes", g3...)
	for _, n := range []string{"qa_shard_gpu_utilization_ratio", "qa_shard_gpu_temperature_celsius",
		"qa_shard_gpu_power_watts", "qa_shard_gpu_throttled", "qa_shard_gpu_clock_event_reasons"} {
		if f.metric(n, g3...) != nil {
			t.Errorf("%s reported for gpu3, whose reading is unavailable", n)
		}
	}
	// Each family has exactly the GPUs with that reading: gpu4 and gpu5 nowhere.
	wantGPUs := map[string][]string{
		"qa_shard_gpu_utilization_ratio":   {"gpu0", "gpu1"},
		"qa_shard_gpu_memory_used_bytes":   {"gpu0", "gpu1", "gpu3"},
		"qa_shard_gpu_temperature_celsius": {"gpu0", "gpu1"},
		"qa_shard_gpu_power_watts":         {"gpu0", "gpu1"},
		"qa_shard_gpu_throttled":           {"gpu0", "gpu1"},
		"qa_shard_gpu_clock_event_reasons": {"gpu0", "gpu1"},
	}
	for name, want := range wantGPUs {
		if got := gpuLabelValues(f, name); !slices.Equal(got, want) {
			t.Errorf("%s: GPUs %v, want %v", name, got, want)
		}
	}
}

func gpuLabelValues(f families, name string) []string {
	var out []string
	for _, m := range f[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "gpu" {
				out = append(out, l.GetValue())
			}
		}
	}
	slices.Sort(out)
	return out
}

// The source is called at every scrape, so values follow it and a GPU that
// is no longer reported disappears.
func TestGPUSourceReadAtScrape(t *testing.T) {
	r := new(testID)
	var mu sync.Mutex
	samples := []gpu.Sample{
		{Index: 0, UUID: "GPU-aaa", At: sampled, UtilPercent: 20, MemUsed: 1, TempC: 1, PowerW: 1},
		{Index: 1, UUID: "GPU-bbb", At: sampled, UtilPercent: 30, MemUsed: 1, TempC: 1, PowerW: 1},
	}
	r.SetGPUSource(func() []gpu.Sample {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(samples)
	})
	f := scrape(t, r)
	expectValue(t, f, 0.2, "qa_shard_gpu_utilization_ratio", "gpu", "gpu0", "uuid", "GPU-aaa")

	mu.Lock()
	samples = samples[:1]
	samples[0].UtilPercent = 90
	mu.Unlock()
	f = scrape(t, r)
	expectValue(t, f, 0.9, "qa_shard_gpu_utilization_ratio", "gpu", "gpu0", "uuid", "GPU-aaa")
	if f.metric("qa_shard_gpu_utilization_ratio", "gpu", "gpu1", "uuid", "GPU-bbb") != nil {
		t.Error("gpu1 still reported after the source dropped it")
	}

	r.SetGPUSource(nil)
	f = scrape(t, r)
	if got := f.names("qa_shard_gpu_"); len(got) != 0 {
		t.Errorf("GPU families %v after the source was removed", got)
	}
}

func TestNoGPUSource(t *testing.T) {
	f := scrape(t, new(testID))
	if got := f.names("qa_shard_gpu_"); len(got) != 0 {
		t.Errorf("GPU families %v without a GPU source", got)
	}
}
