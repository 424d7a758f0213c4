package gpu

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// fakeClock is stepped by the test; the sampler reads it once per GPU.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestSamplerSummary(t *testing.T) {
	m := newMachine(t, "h100", 2)
	n := m.open(t)
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	found, err := n.Devices()
	if err != nil {
		t.Fatal(err)
	}
	s := n.NewSampler(found, SamplerOptions{Interval: time.Second, Now: clock.now})
	// gpu0 over four samples at 0, 10, 25, 40 s. Reasons: none, HW thermal
	// (0x40), idle (0x1, not throttling), SW power cap + idle (0x5).
	steps := []struct {
		at      time.Duration
		util    uint32
		usedGiB uint64
		temp    uint32
		powerMW uint32
		reasons uint64
	}{
		{0, 50, 10, 60, 300000, 0},
		{10 * time.Second, 70, 30, 75, 350500, 0x40},
		{25 * time.Second, 90, 20, 70, 400000, 0x1},
		{40 * time.Second, 10, 5, 65, 100000, 0x5},
	}
	start := clock.t
	for _, st := range steps {
		m.tel[0].set(func(tl *tele) {
			tl.util, tl.used, tl.temp, tl.powerMW, tl.reasons = st.util, st.usedGiB<<30, st.temp, st.powerMW, st.reasons
		})
		clock.t = start.Add(st.at)
		got := s.Sample()
		if got[0].UtilPercent != int(st.util) || got[0].MemUsed != int64(st.usedGiB<<30) || got[0].TempC != int(st.temp) ||
			got[0].PowerW != float64(st.powerMW)/1000 || got[0].ClockReasons != st.reasons || !got[0].At.Equal(clock.t) {
			t.Fatalf("sample at %v = %+v", st.at, got[0])
		}
	}
	if got := s.Latest()[0]; got.UtilPercent != 10 || got.PowerW != 100 {
		t.Errorf("Latest = %+v, want the last sample", got)
	}
	sum := s.Summary()[0]
	want := Summary{Index: 0, UUID: uuidOf(0), Samples: 4, MeanUtil: 55, PeakMem: 30 << 30, MaxTempC: 75,
		ThrottledSeconds: 10 + 15, ThrottleReasons: 0x45}
	if sum.Index != want.Index || sum.UUID != want.UUID || sum.Samples != want.Samples || math.Abs(sum.MeanUtil-want.MeanUtil) > 1e-9 ||
		sum.PeakMem != want.PeakMem || sum.MaxTempC != want.MaxTempC || sum.ThrottledSeconds != want.ThrottledSeconds ||
		sum.ThrottleReasons != want.ThrottleReasons || len(sum.Unavailable) != 0 {
		t.Fatalf("summary = %+v\nwant %+v", sum, want)
	}
	line := sum.String()
	for _, part := range []string{"gpu0 " + uuidOf(0), "mean utilization 55.0%", "peak memory 30.0 GiB", "max temperature 75 C", "throttled 25 s", "(reasons 0x44)"} {
		if !strings.Contains(line, part) {
			t.Errorf("summary line %q lacks %q", line, part)
		}
	}
	if got, want := s.Latest()[0].String(), "gpu0 10% 5.0GiB 65C 100W throttled(0x4)"; got != want {
		t.Errorf("sample line %q, want %q", got, want)
	}
}

// Metrics that fail are asked once, logged once, reported as unavailable,
// and the sampler keeps going with the rest.
func TestSamplerUnavailableMetrics(t *testing.T) {
	m := newMachine(t, "a100", 2)
	m.tel[1].fail = map[string]nvml.Return{
		MetricUtilization:  nvml.ERROR_NOT_SUPPORTED,
		MetricPower:        nvml.ERROR_NO_PERMISSION,
		MetricRemappedRows: nvml.ERROR_NOT_SUPPORTED,
		MetricRetiredPages: nvml.ERROR_NOT_SUPPORTED,
	}
	m.tel[1].set(func(tl *tele) { tl.temp, tl.used = 55, 3<<30 })
	core, logs := observer.New(zap.InfoLevel)
	n := m.open(t)
	found, _ := n.Devices()
	s := n.NewSampler(found, SamplerOptions{Log: zap.New(core)})
	for range 3 {
		s.Sample()
	}
	got := s.Latest()[1]
	if got.UtilPercent != -1 || got.PowerW != -1 || got.TempC != 55 || got.MemUsed != 3<<30 {
		t.Fatalf("sample = %+v", got)
	}
	wantOff := []string{MetricUtilization, MetricPower, MetricRemappedRows, MetricRetiredPages}
	if !slices.Equal(got.Unavailable, wantOff) {
		t.Errorf("Unavailable = %v, want %v", got.Unavailable, wantOff)
	}
	if c := len(m.devs[1].GetUtilizationRatesCalls()); c != 1 {
		t.Errorf("utilization asked %d times, want once", c)
	}
	if c := len(m.devs[1].GetRetiredPagesPendingStatusCalls()); c != 1 {
		t.Errorf("retired pages asked %d times, want once", c)
	}
	// gpu0 reports row remapping, so retired pages are never asked there.
	if c := len(m.devs[0].GetRetiredPagesPendingStatusCalls()); c != 0 {
		t.Errorf("gpu0 retired pages asked %d times", c)
	}
	if c := logs.FilterMessageSnippet("unavailable").Len(); c != 4 {
		t.Errorf("%d unavailable log lines, want 4 (one per metric)", c)
	}
	sum := s.Summary()[1]
	if sum.MeanUtil != -1 || sum.Samples != 3 || sum.MaxTempC != 55 || !slices.Equal(sum.Unavailable, wantOff) {
		t.Errorf("summary = %+v", sum)
	}
	if line := sum.String(); !strings.Contains(line, "mean utilization -") || !strings.Contains(line, "unavailable: utilization power") {
		t.Errorf("summary line %q", line)
	}
	if got, want := got.String(), "gpu1 - 3.0GiB 55C -"; got != want {
		t.Errorf("sample line %q, want %q", got, want)
	}
}

// A sampler whose NVML has gone (closed) still samples: nothing but
// "handle" unavailable, no panic, no error.
func TestSamplerAfterClose(t *testing.T) {
	m := newMachine(t, "h100", 1)
	n := m.open(t)
	sel, err := Select("all", m.discover(t), nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := n.NewSampler(sel.Devices, SamplerOptions{})
	n.Close()
	got := s.Sample()
	if len(got) != 1 || got[0].UtilPercent != -1 || !slices.Equal(got[0].Unavailable, []string{MetricHandle}) {
		t.Fatalf("sample after Close = %+v", got)
	}
}

// Run samples at once, so a run shorter than one interval still has a
// reading; MIG instances and CPU devices do not add GPUs.
func TestSamplerRun(t *testing.T) {
	m := newMachine(t, "h100", 2)
	m.enableMIG(1, 2)
	n := m.open(t)
	found, _ := n.Devices()
	devs := []Device{found[0], found[1].MIGDevices[0], found[1].MIGDevices[1], {Kind: KindCPU}}
	s := n.NewSampler(devs, SamplerOptions{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Run(ctx)
	sums := s.Summary()
	if len(sums) != 2 || sums[0].Samples != 1 || sums[1].Samples != 1 || sums[1].UUID != uuidOf(1) {
		t.Fatalf("summaries = %+v", sums)
	}
}
