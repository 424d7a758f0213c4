package gpu

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

func TestDiscoverMachines(t *testing.T) {
	for _, tc := range []struct {
		kind, model string
		n           int
		cc          string
		totalGiB    uint64
	}{
		{"h200", "NVIDIA H200 141GB HBM3e", 1, "9.0", 141},
		{"h100", "NVIDIA H100 80GB HBM3", 2, "9.0", 80},
		{"a100", "NVIDIA A100-SXM4-80GB", 8, "8.0", 80},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.kind, tc.n), func(t *testing.T) {
			ds := newMachine(t, tc.kind, tc.n).discover(t)
			if len(ds) != tc.n {
				t.Fatalf("%d devices, want %d", len(ds), tc.n)
			}
			for i, d := range ds {
				want := Device{Kind: KindGPU, Index: i, UUID: uuidOf(i), Model: tc.model,
					MemoryTotal: tc.totalGiB << 30, MemoryFree: tc.totalGiB<<30 - uint64(i+1)<<30,
					BusID: busOf(i), ComputeCapability: tc.cc}
				if d.Model != want.Model || d.UUID != want.UUID || d.Index != i || d.BusID != want.BusID ||
					d.MemoryTotal != want.MemoryTotal || d.MemoryFree != want.MemoryFree ||
					d.ComputeCapability != want.ComputeCapability || d.MIGEnabled || d.Fault != "" {
					t.Errorf("device %d = %+v\nwant %+v", i, d, want)
				}
				if d.Name() != fmt.Sprintf("gpu%d", i) {
					t.Errorf("Name() = %q", d.Name())
				}
			}
		})
	}
}

func TestDiscoverMIG(t *testing.T) {
	m := newMachine(t, "h100", 2)
	m.enableMIG(1, 3)
	ds := m.discover(t)
	if ds[0].MIGEnabled || len(ds[0].MIGDevices) != 0 {
		t.Errorf("gpu0 = %+v, want no MIG", ds[0])
	}
	g := ds[1]
	if !g.MIGEnabled || len(g.MIGDevices) != 3 {
		t.Fatalf("gpu1 MIG = %t with %d devices, want true with 3", g.MIGEnabled, len(g.MIGDevices))
	}
	for k, md := range g.MIGDevices {
		if md.UUID != migOf(1, k) || md.Parent != uuidOf(1) || md.Index != 1 || md.MIGIndex != k ||
			md.MemoryTotal != 10<<30 || md.BusID != busOf(1) || !md.IsMIG() {
			t.Errorf("MIG device %d = %+v", k, md)
		}
		if want := fmt.Sprintf("gpu1/mig%d", k); md.Name() != want {
			t.Errorf("Name() = %q, want %q", md.Name(), want)
		}
	}
}

// A GPU that is lost is listed with its fault; the others are intact.
func TestDiscoverLostGPU(t *testing.T) {
	m := newMachine(t, "h100", 3)
	m.tel[1].pciRet = nvml.ERROR_GPU_IS_LOST
	ds := m.discover(t)
	if len(ds) != 3 || ds[1].Fault == "" || ds[0].Fault != "" || ds[2].Fault != "" {
		t.Fatalf("faults = %q %q %q; want only gpu1's", ds[0].Fault, ds[1].Fault, ds[2].Fault)
	}
	if !strings.Contains(ds[1].Fault, "lost") {
		t.Errorf("fault %q does not say the GPU is lost", ds[1].Fault)
	}
}

// After a failed Init nothing else may be called: the mock panics on any
// method but Init, so reaching the end proves it.
func TestOpenNoDriver(t *testing.T) {
	for _, ret := range []nvml.Return{nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED} {
		lib := &mock.Interface{InitFunc: func() nvml.Return { return ret }}
		ds, err := discoverWith(lib)
		if !errors.Is(err, ErrNoDriver) || ds != nil {
			t.Errorf("Init %v: discoverWith = %v, %v; want ErrNoDriver", ret, ds, err)
		}
		if len(lib.InitCalls()) != 1 {
			t.Errorf("Init called %d times", len(lib.InitCalls()))
		}
	}
}

// Other Init failures are not "no driver": a broken install must not be
// hidden by a quiet CPU run.
func TestOpenBrokenDriver(t *testing.T) {
	lib := &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIB_RM_VERSION_MISMATCH }}
	_, err := open(lib)
	if err == nil || errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "ERROR_LIB_RM_VERSION_MISMATCH") {
		t.Fatalf("Open = %v; want a plain error naming the mismatch", err)
	}
}

// TestNewOptions: New takes the library it is given, and a library path
// with nothing there is ErrNoDriver, as a machine without the driver.
func TestNewOptions(t *testing.T) {
	if _, err := New(WithLibrary(noDriverLib())); !errors.Is(err, ErrNoDriver) {
		t.Errorf("New(WithLibrary(no driver)) = %v, want ErrNoDriver", err)
	}
	if _, err := New(WithLibraryPath(filepath.Join(t.TempDir(), "libnvidia-ml.so.1"))); !errors.Is(err, ErrNoDriver) {
		t.Errorf("New(WithLibraryPath(nothing there)) = %v, want ErrNoDriver", err)
	}
}

// The real NVML on whatever machine runs the tests: without a driver this
// must be ErrNoDriver, not a dead process; with one, real GPUs.
func TestNew(t *testing.T) {
	n, err := New()
	if err != nil {
		if !errors.Is(err, ErrNoDriver) {
			t.Fatalf("New: %v", err)
		}
		return
	}
	defer n.Close()
	ds, err := n.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	for _, d := range ds {
		if d.Fault == "" && !strings.HasPrefix(d.UUID, "GPU-") {
			t.Errorf("device %d has UUID %q", d.Index, d.UUID)
		}
	}
}

func TestClosedNVML(t *testing.T) {
	m := newMachine(t, "h100", 1)
	n := m.open(t)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Devices(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Devices after Close = %v, want ErrClosed", err)
	}
	if n.DriverVersion() != "" {
		t.Error("DriverVersion after Close is not empty")
	}
}

func TestDriverVersion(t *testing.T) {
	if v := newMachine(t, "h100", 1).open(t).DriverVersion(); v != "550.54.15" {
		t.Fatalf("DriverVersion = %q", v)
	}
}
