package gpu

import (
	"context"
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Library is the part of NVML this package calls at the top level. The real
// library (nvml.New()) and go-nvml's mock servers both satisfy it.
type Library interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	SystemGetDriverVersion() (string, nvml.Return)
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(int) (nvml.Device, nvml.Return)
	EventSetCreate() (nvml.EventSet, nvml.Return)
	Extensions() nvml.ExtendedInterface // LookupSymbol: see symbols.go
}

// NVML is an initialised NVML. Only Open creates one, and only after Init
// returned SUCCESS, so no NVML function can run after a failed Init.
//
// Samplers and watchers hold the NVML while they run (enter/leave); Close
// stops them and waits until they are out of every NVML call before it
// shuts NVML down, because go-nvml's Shutdown unloads the library.
type NVML struct {
	lib Library

	done context.Context // ends when Close starts
	stop context.CancelFunc
	busy sync.WaitGroup // samplers, watchers and calls in progress

	mu      sync.Mutex
	closed  bool
	handles map[int]nvml.Device // by NVML index, filled by Devices
	symbols map[string]bool     // LookupSymbol results, see symbols.go
}

// open initialises lib. A missing library or driver is ErrNoDriver; any
// other Init failure (driver/library mismatch...) is a plain error, because
// quietly running a GPU machine on the CPU would hide a broken install.
func open(lib Library) (*NVML, error) {
	ret := lib.Init()
	switch ret {
	case nvml.SUCCESS:
		done, stop := context.WithCancel(context.Background())
		return &NVML{lib: lib, done: done, stop: stop, handles: map[int]nvml.Device{}, symbols: map[string]bool{}}, nil
	case nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED:
		// ret.Error() is safe here: go-nvml formats codes in Go until the
		// library has loaded.
		return nil, fmt.Errorf("%w: nvmlInit: %w", ErrNoDriver, ret)
	}
	return nil, fmt.Errorf("NVML initialisation failed (driver and library versions, permissions?): %w", ret)
}

// Option configures New, as go-nvml's and go-nvlib's constructors take
// theirs.
type Option func(*options)

type options struct {
	lib  Library
	path string
}

// WithLibrary makes New initialise lib (go-nvml's mock, say) instead of
// the machine's NVML.
func WithLibrary(lib Library) Option { return func(o *options) { o.lib = lib } }

// WithLibraryPath makes New load NVML from path instead of the
// libnvidia-ml.so.1 the dynamic loader finds.
func WithLibraryPath(path string) Option { return func(o *options) { o.path = path } }

// New opens NVML: the machine's (libnvidia-ml.so.1) unless an option
// says otherwise. Its users declare the part of *NVML they call (fleet,
// commands/devices). A machine without the driver is ErrNoDriver.
func New(opts ...Option) (*NVML, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case o.lib != nil:
		return open(o.lib)
	case o.path != "":
		return open(nvml.New(nvml.WithLibraryPath(o.path)))
	}
	return open(nvml.New())
}

// Close stops every sampler and watcher of n, waits until none is inside
// an NVML call (an event wait lasts up to WatchOptions.WaitTimeout), then
// shuts NVML down. Later calls fail with ErrClosed or record the metric as
// unavailable; nothing calls into the unloaded library.
func (n *NVML) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.stop()
	n.busy.Wait()
	if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("nvmlShutdown: %w", ret)
	}
	return nil
}

// enter marks an NVML user (a call, a sampler, a watcher) that Close waits
// for; false once Close has started. Every enter that returns true is
// paired with one leave.
func (n *NVML) enter() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	n.busy.Add(1)
	return true
}

func (n *NVML) leave() { n.busy.Done() }

// DriverVersion is the driver's version string, "" when NVML cannot say.
func (n *NVML) DriverVersion() string {
	if !n.enter() {
		return ""
	}
	defer n.leave()
	v, ret := n.lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		return ""
	}
	return v
}

// Devices lists every GPU NVML sees, in NVML index order. A GPU NVML cannot
// read is listed with Fault set rather than failing the whole discovery: one
// lost GPU must not take the healthy ones with it.
func (n *NVML) Devices() ([]Device, error) {
	if !n.enter() {
		return nil, ErrClosed
	}
	defer n.leave()
	count, ret := n.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("nvmlDeviceGetCount: %w", ret)
	}
	out := make([]Device, 0, count)
	for i := range count {
		h, ret := n.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			out = append(out, Device{Kind: KindGPU, Index: i, Fault: fmt.Sprintf("nvmlDeviceGetHandleByIndex: %v", ret)})
			continue
		}
		n.mu.Lock()
		n.handles[i] = h
		n.mu.Unlock()
		out = append(out, n.readDevice(i, h))
	}
	return out, nil
}

// handle returns the NVML handle of the GPU with NVML index i.
func (n *NVML) handle(i int) (nvml.Device, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	if h, ok := n.handles[i]; ok {
		return h, nil
	}
	h, ret := n.lib.DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("nvmlDeviceGetHandleByIndex(%d): %w", i, ret)
	}
	n.handles[i] = h
	return h, nil
}

// readDevice reads what the table and the selection need. Only the UUID is
// essential (CUDA_VISIBLE_DEVICES is built from it); other fields stay zero
// when the driver does not report them.
func (n *NVML) readDevice(i int, h nvml.Device) Device {
	d := Device{Kind: KindGPU, Index: i}
	uuid, ret := h.GetUUID()
	if ret != nvml.SUCCESS {
		d.Fault = fmt.Sprintf("nvmlDeviceGetUUID: %v", ret)
		return d
	}
	d.UUID = uuid
	if name, ret := h.GetName(); ret == nvml.SUCCESS {
		d.Model = name
	}
	if mem, ret := h.GetMemoryInfo(); ret == nvml.SUCCESS {
		d.MemoryTotal, d.MemoryFree = mem.Total, mem.Free
	}
	if pci, ret := h.GetPciInfo(); ret == nvml.SUCCESS {
		d.BusID = busID(pci)
	} else if ret == nvml.ERROR_GPU_IS_LOST {
		d.Fault = "GPU is lost (nvmlDeviceGetPciInfo: ERROR_GPU_IS_LOST)"
		return d
	}
	if n.has(symComputeCapability) {
		if major, minor, ret := h.GetCudaComputeCapability(); ret == nvml.SUCCESS {
			d.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
		}
	}
	// NOT_SUPPORTED on GPUs without MIG is the normal answer, not a fault;
	// drivers older than MIG lack the functions altogether.
	if n.has(symMIG...) {
		if cur, _, ret := h.GetMigMode(); ret == nvml.SUCCESS && cur == nvml.DEVICE_MIG_ENABLE {
			d.MIGEnabled = true
			d.MIGDevices = readMIG(d, h)
		}
	}
	return d
}

// readMIG lists the MIG devices of a MIG-enabled GPU. Slots without a MIG
// device answer ERROR_NOT_FOUND and are skipped.
func readMIG(parent Device, h nvml.Device) []Device {
	slots, ret := h.GetMaxMigDeviceCount()
	if ret != nvml.SUCCESS {
		return nil
	}
	var out []Device
	for k := range slots {
		m, ret := h.GetMigDeviceHandleByIndex(k)
		if ret != nvml.SUCCESS {
			continue
		}
		uuid, ret := m.GetUUID()
		if ret != nvml.SUCCESS {
			continue
		}
		md := Device{Kind: KindGPU, Index: parent.Index, UUID: uuid, Parent: parent.UUID, MIGIndex: k,
			BusID: parent.BusID, ComputeCapability: parent.ComputeCapability}
		if name, ret := m.GetName(); ret == nvml.SUCCESS {
			md.Model = name
		}
		if mem, ret := m.GetMemoryInfo(); ret == nvml.SUCCESS {
			md.MemoryTotal, md.MemoryFree = mem.Total, mem.Free
		}
		out = append(out, md)
	}
	return out
}

// busID turns NVML's NUL-terminated C string into Go, preferring the
// 8-digit-domain form nvidia-smi prints and falling back to the legacy one.
func busID(p nvml.PciInfo) string {
	if s := cString(p.BusId[:]); s != "" {
		return s
	}
	return cString(p.BusIdLegacy[:])
}

func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
