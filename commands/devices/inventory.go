package devices

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"qa-shard/gpu"
	"qa-shard/worker"
)

// NoDriverLine is what a user without a GPU sees; scripts grep for it.
const NoDriverLine = "no NVIDIA driver found (NVML could not be loaded): qa-shard will run on the CPU (--devices cpu)"

// devicesJSON is the --json document.
type devicesJSON struct {
	Driver        bool         `json:"driver"`
	DriverVersion string       `json:"driver_version,omitempty"`
	Message       string       `json:"message,omitempty"`
	Devices       []gpu.Device `json:"devices"`
	CUDAVisible   *visibleJSON `json:"cuda_visible_devices,omitempty"`
	Default       []string     `json:"default_selection"`
	Warnings      []string     `json:"warnings,omitempty"`
	// ONNXRuntime is the library a run would load and its providers
	// (absent when not asked for).
	ONNXRuntime *libraryJSON `json:"onnxruntime,omitempty"`
}

type visibleJSON struct {
	Value   string   `json:"value"`
	Visible []string `json:"visible"` // UUIDs CUDA may use, in order
}

// writeInventory prints discovery (found, or the error discovery gave) as a
// table or JSON, with what CUDA_VISIBLE_DEVICES and --devices all make of
// it. No driver is not an error: the user learns the run will be on the
// CPU. Other NVML failures are returned after nothing is printed. With lib
// it also says which ONNX Runtime library a run would load, its providers
// and what would stop a run on the GPUs selected.
func writeInventory(w io.Writer, found []gpu.Device, foundErr error, driver string, getenv func(string) (string, bool), asJSON bool, lib *worker.Library) error {
	if foundErr != nil && !errors.Is(foundErr, gpu.ErrNoDriver) {
		return foundErr
	}
	doc := devicesJSON{Driver: foundErr == nil, DriverVersion: driver, Devices: append([]gpu.Device{}, found...)}
	if foundErr != nil {
		doc.Message = NoDriverLine
	}
	if vis := gpu.Visible(found, getenv); vis.Set {
		doc.CUDAVisible = &visibleJSON{Value: vis.Value, Visible: []string{}}
		for _, u := range vis.Units {
			doc.CUDAVisible.Visible = append(doc.CUDAVisible.Visible, u.UUID)
		}
	}
	sel, err := gpu.Select("all", found, foundErr, getenv)
	if err != nil {
		doc.Warnings = append(doc.Warnings, "--devices all: "+err.Error())
	}
	for _, d := range sel.Devices {
		doc.Default = append(doc.Default, d.Name())
	}
	doc.Warnings = append(doc.Warnings, sel.Warnings...)
	if lib != nil {
		gpus := 0
		if sel.OnGPU() {
			gpus = len(sel.Devices)
		}
		doc.ONNXRuntime = &libraryJSON{Library: *lib, GPUProblem: gpuProblem(*lib, gpus)}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return writeTable(w, doc)
}

func writeTable(w io.Writer, doc devicesJSON) error {
	if err := writeGPUs(w, doc); err != nil {
		return err
	}
	if doc.ONNXRuntime != nil {
		writeLibrary(w, *doc.ONNXRuntime)
	}
	return nil
}

func writeGPUs(w io.Writer, doc devicesJSON) error {
	if !doc.Driver {
		fmt.Fprintln(w, doc.Message)
		return nil
	}
	fmt.Fprintf(w, "NVIDIA driver %s, %d GPU(s); INDEX is nvidia-smi's numbering (NVML, PCI bus order)\n\n", doc.DriverVersion, len(doc.Devices))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tUUID\tNAME\tMEMORY FREE/TOTAL\tBUS ID\tCC\tMIG")
	for _, d := range doc.Devices {
		if d.Fault != "" {
			fmt.Fprintf(tw, "%d\t%s\t%s\t\t\t\tFAULT: %s\n", d.Index, orNone(d.UUID), d.Model, d.Fault)
			continue
		}
		mig := "-"
		if d.MIGEnabled {
			mig = fmt.Sprintf("enabled, %d device(s)", len(d.MIGDevices))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Index, d.UUID, d.Model, memory(d), d.BusID, d.ComputeCapability, mig)
		for _, m := range d.MIGDevices {
			// Every cell tab-terminated, so the GPU rows below stay aligned.
			fmt.Fprintf(tw, "  mig%d\t%s\t%s\t%s\t\t\t\n", m.MIGIndex, m.UUID, m.Model, memory(m))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v := doc.CUDAVisible; v != nil {
		fmt.Fprintf(w, "\nCUDA_VISIBLE_DEVICES=%q restricts this process to: %s\n", v.Value, orNone(strings.Join(v.Visible, ", ")))
	}
	fmt.Fprintf(w, "\n--devices all (the default) would use: %s\n", orNone(strings.Join(doc.Default, ", ")))
	for _, warn := range doc.Warnings {
		fmt.Fprintf(w, "  note: %s\n", warn)
	}
	return nil
}

func memory(d gpu.Device) string {
	if d.MemoryTotal == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f/%.1f GiB", float64(d.MemoryFree)/(1<<30), float64(d.MemoryTotal)/(1<<30))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
