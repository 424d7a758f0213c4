// Package gpu owns where replicas run: NVML discovery of NVIDIA GPUs, the
// --devices grammar bounded by CUDA_VISIBLE_DEVICES, GPU telemetry and the
// Xid health watcher. It is the only package that imports go-nvml, so the
// rest of the program sees plain values (Device, Selection, Sample, Health).
//
// NVML is reached only through *NVML, which exists only after a successful
// nvml.Init: calling any NVML function after a failed Init kills the process
// (an unresolved symbol recover() cannot catch), so the type system is what
// keeps that from happening.
package gpu

import (
	"fmt"
	"time"

	"qa-shard/internal/errkind"
)

// ErrSelection marks a --devices value that cannot be satisfied.
var ErrSelection = errkind.NewUser("device selection")

// ErrNoDriver means NVML could not be loaded or initialised because no
// NVIDIA driver is installed or loaded; the program can still run on the CPU.
var ErrNoDriver = errkind.NewInternal("no NVIDIA driver found (NVML could not be loaded)")

// ErrClosed is returned by NVML methods called after Close.
var ErrClosed = errkind.NewInternal("NVML session closed")

// Device kinds.
const (
	KindCPU = "cpu"
	KindGPU = "gpu"
)

// Device is one place a replica runs: a CPU slot, a whole GPU, or one MIG
// instance of a GPU. Discovery fills the NVML fields; Select sets DeviceID.
type Device struct {
	Kind string `json:"kind"`
	// Index: for CPU devices the replica number; for GPUs the NVML index,
	// which is nvidia-smi's numbering in the same container; for a MIG
	// instance the NVML index of its parent GPU.
	Index int `json:"index"`
	// DeviceID is the CUDA device ordinal the replica passes to ONNX Runtime
	// (device_id) once Selection.Env is applied: its position in
	// CUDA_VISIBLE_DEVICES. Meaningful only in Selection.Devices.
	DeviceID          int      `json:"-"`
	UUID              string   `json:"uuid,omitempty"`
	Model             string   `json:"name,omitempty"`
	MemoryTotal       uint64   `json:"memory_total_bytes,omitempty"`
	MemoryFree        uint64   `json:"memory_free_bytes,omitempty"`
	BusID             string   `json:"pci_bus_id,omitempty"` // NVML format, "00000000:3B:00.0"
	ComputeCapability string   `json:"compute_capability,omitempty"`
	MIGEnabled        bool     `json:"mig_enabled"`
	MIGDevices        []Device `json:"mig_devices,omitempty"`
	// Parent and MIGIndex identify a MIG instance: its GPU's UUID and its
	// position among that GPU's MIG devices.
	Parent   string `json:"parent_uuid,omitempty"`
	MIGIndex int    `json:"mig_index,omitempty"`
	// Fault is non-empty when NVML could not read the device (for example
	// ERROR_GPU_IS_LOST); such a device is never selected.
	Fault string `json:"fault,omitempty"`
}

// Name is how logs and summaries call the device: "cpu:0" for CPU slots,
// "gpu3" for the GPU nvidia-smi calls 3 (the NVML index, never the CUDA
// ordinal, so a log line can be matched with nvidia-smi), "gpu3/mig1" for a
// MIG instance.
func (d Device) Name() string {
	switch {
	case d.Kind == KindCPU:
		return fmt.Sprintf("cpu:%d", d.Index)
	case d.Parent != "":
		return fmt.Sprintf("gpu%d/mig%d", d.Index, d.MIGIndex)
	}
	return fmt.Sprintf("gpu%d", d.Index)
}

// IsMIG says whether d is a MIG instance rather than a whole GPU.
func (d Device) IsMIG() bool { return d.Parent != "" }

// EnvVar is one environment variable to set before ONNX Runtime touches CUDA.
type EnvVar struct {
	Key, Value string
}

// Selection is the outcome of Select: plain values the caller logs and applies.
type Selection struct {
	// Devices to start replicas on; for GPUs, Devices[i].DeviceID == i.
	Devices []Device
	// Env must be set (Apply) before the first CUDA session is created:
	// CUDA reads CUDA_VISIBLE_DEVICES once per process.
	Env []EnvVar
	// Warnings are one line each, for the log.
	Warnings []string
}

// OnGPU says whether the selection runs on GPUs.
func (s Selection) OnGPU() bool { return len(s.Devices) > 0 && s.Devices[0].Kind == KindGPU }

// Apply sets Env through setenv (os.Setenv in the program).
func (s Selection) Apply(setenv func(key, value string) error) error {
	for _, e := range s.Env {
		if err := setenv(e.Key, e.Value); err != nil {
			return fmt.Errorf("setting %s: %w", e.Key, err)
		}
	}
	return nil
}

// Health reports a device that must be taken out of service: a whole GPU,
// or a MIG instance of a GPU that failed (its UUID is the MIG UUID the
// selection used, its Parent the GPU's).
type Health struct {
	UUID   string
	Index  int    // NVML index of the GPU
	Xid    uint64 // 0 when the cause is not an Xid (GPU lost, row remapping)
	Reason string
	Parent string // the GPU's UUID for a MIG instance, else ""
}

func cpus(n int) []Device {
	out := make([]Device, n)
	for i := range out {
		out[i] = Device{Kind: KindCPU, Index: i}
	}
	return out
}

// Visibility is what an existing CUDA_VISIBLE_DEVICES leaves of the GPUs
// NVML sees: a launcher such as Slurm sets it per job, and CUDA numbers
// the GPUs it leaves from 0 in the variable's order.
type Visibility struct {
	Set   bool   // the variable is present (even empty)
	Value string // its value
	// Units are the whole GPUs and MIG instances CUDA would see, in the
	// variable's order; empty when Set and it hides every GPU.
	Units []Device
	// Warnings explain entries CUDA ignores (an invalid entry truncates the
	// list at that point, as CUDA does).
	Warnings []string
}

// Sample is one reading of one GPU. A metric the GPU does not report (not
// supported, no permission) is -1 (false for the flags) and named in
// Unavailable; it is asked once and never again.
type Sample struct {
	Index          int
	UUID           string
	At             time.Time
	UtilPercent    int     // GPU busy over the driver's last sample period
	MemUsed        int64   // bytes
	TempC          int     // degrees Celsius
	PowerW         float64 // watts
	ClockReasons   uint64  // nvmlClocksEventReasons bitmask
	RemapPending   bool    // rows waiting for a reset to be remapped
	RemapFailed    bool    // a row remapping failed
	RetiredPending bool    // retired pages waiting for a reset (pre-Ampere)
	// HealthEvents counts the health events (critical Xid, double-bit
	// ECC, GPU lost: Health) the run's watcher reported for this GPU so
	// far; the sampler leaves it 0 and the fleet fills it in.
	HealthEvents uint64
	Unavailable  []string
}

// ThrottleMask holds the clock-event reasons that mean thermal or power
// throttling (NVML's clock-event reason bits): SW power cap 0x4, HW
// slowdown 0x8, SW thermal 0x20, HW thermal 0x40, HW power brake 0x80.
// Idle (0x1) and application clock settings (0x2) are not throttling.
const ThrottleMask uint64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80

// Throttled says whether the sample saw thermal or power throttling.
func (s Sample) Throttled() bool { return s.ClockReasons&ThrottleMask != 0 }

// Summary is one GPU over a whole run.
type Summary struct {
	Index   int
	UUID    string
	Samples int
	// MeanUtil is the mean of the samples that had utilization; -1 if none.
	MeanUtil float64
	PeakMem  int64 // bytes; -1 if never available
	MaxTempC int   // -1 if never available
	// ThrottledSeconds adds, for every sample that saw a throttle reason,
	// the time since the previous sample (throttling is only observed at
	// sample points, so the interval before one is attributed to it).
	ThrottledSeconds float64
	ThrottleReasons  uint64 // every reason seen, OR-ed
	RemapPending     bool
	RemapFailed      bool
	Unavailable      []string
}
