package gpu

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// The mock leaves UUIDs random, free memory 0, the bus id empty and every
// telemetry and event function unset (calling one panics). machine fills
// them with stable, test-controlled values.

// uuidOf shares the prefix "GPU-c0ffee" across GPUs, so prefixes can be
// ambiguous ("GPU-c0ffee") or unique ("GPU-c0ffee01").
func uuidOf(i int) string   { return fmt.Sprintf("GPU-c0ffee%02d-0000-4000-8000-%012d", i, i) }
func busOf(i int) string    { return fmt.Sprintf("00000000:%02X:00.0", 0x18+0x10*i) }
func migOf(i, k int) string { return fmt.Sprintf("MIG-%02d%02d0000-0000-4000-8000-000000000000", i, k) }

// tele is one GPU's telemetry as the test sets it; a metric in fail
// answers that Return instead.
type tele struct {
	mu      sync.Mutex
	util    uint32
	used    uint64
	temp    uint32
	powerMW uint32
	reasons uint64
	pending bool
	failed  bool
	pciRet  nvml.Return
	fail    map[string]nvml.Return
}

func (t *tele) set(f func(t *tele)) { t.mu.Lock(); f(t); t.mu.Unlock() }

// ret answers the configured failure of a metric, or SUCCESS.
func (t *tele) ret(metric string) nvml.Return {
	if r, ok := t.fail[metric]; ok {
		return r
	}
	return nvml.SUCCESS
}

type machine struct {
	srv  *server.Server
	devs []*server.Device
	tel  []*tele
}

// newMachine builds a mock machine of n GPUs: "a100", "h100" or "h200".
func newMachine(t *testing.T, kind string, n int) *machine {
	t.Helper()
	var srv *server.Server
	switch kind {
	case "a100":
		srv = dgxa100.NewWithGPUs(gpus.Multiple(n, gpus.A100_SXM4_80GB)...)
	case "h100":
		srv = dgxh100.NewWithGPUs(gpus.Multiple(n, gpus.H100_SXM5_80GB)...)
	case "h200":
		srv = dgxh200.NewWithGPUs(gpus.Multiple(n, gpus.H200_SXM5_141GB)...)
	default:
		t.Fatalf("unknown machine %q", kind)
	}
	m := &machine{srv: srv}
	for i, nd := range srv.Devices {
		d := nd.(*server.Device)
		d.UUID = uuidOf(i)
		d.MemoryInfo.Used = uint64(i+1) << 30
		d.MemoryInfo.Free = d.MemoryInfo.Total - d.MemoryInfo.Used
		tl := &tele{fail: map[string]nvml.Return{}}
		m.devs, m.tel = append(m.devs, d), append(m.tel, tl)
		bus := busOf(i)
		d.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			var p nvml.PciInfo
			for j := range len(bus) {
				p.BusId[j] = int8(bus[j])
			}
			if tl.pciRet != 0 {
				return nvml.PciInfo{}, tl.pciRet
			}
			return p, nvml.SUCCESS
		}
		d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			return nvml.Utilization{Gpu: tl.util}, tl.ret(MetricUtilization)
		}
		// Memory keeps the discovery values but reports the test's "used".
		d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			mem := d.MemoryInfo
			if tl.used != 0 {
				mem.Used, mem.Free = tl.used, mem.Total-tl.used
			}
			return mem, tl.ret(MetricMemory)
		}
		d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			return tl.temp, tl.ret(MetricTemperature)
		}
		d.GetPowerUsageFunc = func() (uint32, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			return tl.powerMW, tl.ret(MetricPower)
		}
		d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			return tl.reasons, tl.ret(MetricClockReasons)
		}
		d.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) {
			tl.mu.Lock()
			defer tl.mu.Unlock()
			return 0, 0, tl.pending, tl.failed, tl.ret(MetricRemappedRows)
		}
		d.GetRetiredPagesPendingStatusFunc = func() (nvml.EnableState, nvml.Return) {
			return nvml.FEATURE_DISABLED, tl.ret(MetricRetiredPages)
		}
		d.GetSupportedEventTypesFunc = func() (uint64, nvml.Return) {
			return nvml.EventTypeAll, nvml.SUCCESS
		}
		d.RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { return tl.ret("register") }
	}
	return m
}

// enableMIG turns MIG on for GPU i with k MIG devices in slots 0..k-1.
func (m *machine) enableMIG(i, k int) {
	d := m.devs[i]
	d.MigMode = nvml.DEVICE_MIG_ENABLE
	var migs []nvml.Device
	for j := range k {
		uuid := migOf(i, j)
		migs = append(migs, &mock.Device{
			GetUUIDFunc: func() (string, nvml.Return) { return uuid, nvml.SUCCESS },
			GetNameFunc: func() (string, nvml.Return) { return "NVIDIA H100 80GB HBM3 MIG 1g.10gb", nvml.SUCCESS },
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
				return nvml.Memory{Total: 10 << 30, Free: 9 << 30}, nvml.SUCCESS
			},
		})
	}
	d.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 7, nvml.SUCCESS }
	d.GetMigDeviceHandleByIndexFunc = func(s int) (nvml.Device, nvml.Return) {
		if s < len(migs) {
			return migs[s], nvml.SUCCESS
		}
		return nil, nvml.ERROR_NOT_FOUND
	}
}

// eventFeed is an NVML event set the test writes events into.
type eventFeed struct {
	ch    chan nvml.EventData
	freed chan struct{}
}

// withEvents makes EventSetCreate return a set fed by the returned feed.
func (m *machine) withEvents() *eventFeed {
	f := &eventFeed{ch: make(chan nvml.EventData, 16), freed: make(chan struct{})}
	set := &mock.EventSet{
		WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
			select {
			case e := <-f.ch:
				return e, nvml.SUCCESS
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return nvml.EventData{}, nvml.ERROR_TIMEOUT
			}
		},
		FreeFunc: func() nvml.Return { close(f.freed); return nvml.SUCCESS },
	}
	m.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
	return f
}

func (m *machine) open(t *testing.T) *NVML {
	t.Helper()
	n, err := open(m.srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (m *machine) discover(t *testing.T) []Device {
	t.Helper()
	ds, err := discoverWith(m.srv)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// env builds a getenv from pairs; a key absent from the map is unset.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// noDriverLib fails Init like a machine without libnvidia-ml; any other
// call panics (unset mock function), as the real library would kill us.
func noDriverLib() *mock.Interface {
	return &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}
}

// discoverWith lists lib's GPUs and closes NVML again; ErrNoDriver
// (wrapped) when there is no NVIDIA driver.
func discoverWith(lib Library) ([]Device, error) {
	n, err := open(lib)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	return n.Devices()
}
