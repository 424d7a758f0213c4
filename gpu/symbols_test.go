package gpu

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// lacking makes the machine's driver miss the named NVML functions: the
// lookup fails and the Go function panics, as the real process would die
// on the unresolved symbol.
func (m *machine) lacking(symbols ...string) {
	missing := map[string]bool{}
	for _, s := range symbols {
		missing[s] = true
	}
	m.srv.LookupSymbolFunc = func(s string) error {
		if missing[s] {
			return fmt.Errorf("symbol %q not found", s)
		}
		return nil
	}
	die := func(s string) {
		if missing[s] {
			panic(s + " called, but the driver lacks it: the process would die")
		}
	}
	for _, d := range m.devs {
		clock, remap, mig := d.GetCurrentClocksEventReasonsFunc, d.GetRemappedRowsFunc, d.GetMigModeFunc
		d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { die(symClockEvents); return clock() }
		d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) { die(symClockThrottle); return clock() }
		d.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) { die(symRemappedRows); return remap() }
		d.GetMigModeFunc = func() (int, int, nvml.Return) { die("nvmlDeviceGetMigMode"); return mig() }
	}
	create := m.srv.EventSetCreateFunc
	m.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { die("nvmlEventSetCreate"); return create() }
}

// An old driver without the clock-event reasons, row remapping, MIG and
// events: discovery, sampling and watching go on, the older name of the
// clock reasons is used, the rest is unavailable.
func TestMissingNVMLSymbols(t *testing.T) {
	m := newMachine(t, "a100", 2)
	m.withEvents()
	m.lacking(symClockEvents, symRemappedRows, "nvmlDeviceGetMigMode", "nvmlEventSetCreate")
	m.tel[0].reasons = 0x40
	n := m.open(t)
	found, err := n.Devices()
	if err != nil || len(found) != 2 || found[0].MIGEnabled {
		t.Fatalf("Devices = %+v, %v", found, err)
	}
	core, logs := observer.New(zap.InfoLevel)
	s := n.NewSampler(found, SamplerOptions{Log: zap.New(core)})
	got := s.Sample()[0]
	if got.ClockReasons != 0x40 || got.UtilPercent < 0 {
		t.Errorf("sample %+v: want the clock reasons through the older function", got)
	}
	if !slices.Equal(got.Unavailable, []string{MetricRemappedRows}) {
		t.Errorf("unavailable %v, want [%s]", got.Unavailable, MetricRemappedRows)
	}
	if logs.FilterMessageSnippet("unavailable").FilterField(zap.String("reason", "the driver's NVML has no "+symRemappedRows)).Len() != 2 {
		t.Errorf("missing symbol not logged once per GPU: %v", logs.All())
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := n.WatchHealth(ctx, found, WatchOptions{Log: zap.New(core), WaitTimeout: time.Millisecond})
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("health: %+v", rest)
	}
	if logs.FilterMessageSnippet("polling only").Len() != 1 {
		t.Error("missing event functions not logged")
	}
}

// Neither name of the clock reasons: that metric is unavailable, the
// others are read.
func TestMissingClockReasons(t *testing.T) {
	m := newMachine(t, "h100", 1)
	m.lacking(symClockEvents, symClockThrottle)
	m.tel[0].set(func(tl *tele) { tl.temp = 61 })
	n := m.open(t)
	found, _ := n.Devices()
	got := n.NewSampler(found, SamplerOptions{}).Sample()[0]
	if got.TempC != 61 || !slices.Equal(got.Unavailable, []string{MetricClockReasons}) {
		t.Errorf("sample %+v", got)
	}
	sum := n.NewSampler(found, SamplerOptions{})
	sum.Sample()
	if line := sum.Summary()[0].String(); !strings.Contains(line, "unavailable: "+MetricClockReasons) {
		t.Errorf("summary %q", line)
	}
}
