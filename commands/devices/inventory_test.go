package devices

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"qa-shard/gpu"
)

// Plain discovery values (gpu's tests cover NVML through go-nvml's mock):
// gpu0 a whole H100, gpu1 MIG-enabled with one MIG device.
func twoGPUs() []gpu.Device {
	u := func(i int) string { return fmt.Sprintf("GPU-%d0000000-0000-4000-8000-00000000000%d", i+1, i) }
	mig := gpu.Device{Kind: gpu.KindGPU, Index: 1, UUID: "MIG-77000000-0000-4000-8000-000000000000", Parent: u(1),
		Model: "NVIDIA H100 80GB HBM3 MIG 1g.10gb", MemoryTotal: 10 << 30, MemoryFree: 9 << 30}
	return []gpu.Device{
		{Kind: gpu.KindGPU, Index: 0, UUID: u(0), Model: "NVIDIA H100 80GB HBM3", MemoryTotal: 80 << 30, MemoryFree: 79 << 30,
			BusID: "00000000:18:00.0", ComputeCapability: "9.0"},
		{Kind: gpu.KindGPU, Index: 1, UUID: u(1), Model: "NVIDIA H100 80GB HBM3", MemoryTotal: 80 << 30, MemoryFree: 80 << 30,
			BusID: "00000000:2A:00.0", ComputeCapability: "9.0", MIGEnabled: true, MIGDevices: []gpu.Device{mig}},
	}
}

func getenv(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestDevicesTable(t *testing.T) {
	var b bytes.Buffer
	if err := writeInventory(&b, twoGPUs(), nil, "550.54.15", getenv(nil), false, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	row := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no line starting %q in\n%s", prefix, out)
		return ""
	}
	if got, want := row("0 "), "0 GPU-10000000-0000-4000-8000-000000000000 NVIDIA H100 80GB HBM3 79.0/80.0 GiB 00000000:18:00.0 9.0 -"; got != want {
		t.Errorf("gpu0 row %q\nwant %q", got, want)
	}
	if got := row("1 "); !strings.HasSuffix(got, "00000000:2A:00.0 9.0 enabled, 1 device(s)") {
		t.Errorf("gpu1 row %q", got)
	}
	if got := row("  mig0"); !strings.Contains(got, "MIG-77000000-0000-4000-8000-000000000000") {
		t.Errorf("MIG row %q", got)
	}
	for _, want := range []string{"NVIDIA driver 550.54.15, 2 GPU(s)", "--devices all (the default) would use: gpu0\n",
		"note: gpu1 (GPU-20000000-0000-4000-8000-000000000001) left out: MIG is enabled"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "CUDA_VISIBLE_DEVICES") {
		t.Errorf("table mentions CUDA_VISIBLE_DEVICES though it is unset:\n%s", out)
	}
}

func TestDevicesJSON(t *testing.T) {
	var b bytes.Buffer
	cvd := getenv(map[string]string{"CUDA_VISIBLE_DEVICES": "1,0"})
	if err := writeInventory(&b, twoGPUs(), nil, "550.54.15", cvd, true, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Driver  bool `json:"driver"`
		Devices []struct {
			Index      int    `json:"index"`
			UUID       string `json:"uuid"`
			BusID      string `json:"pci_bus_id"`
			CC         string `json:"compute_capability"`
			Memory     uint64 `json:"memory_total_bytes"`
			MIG        bool   `json:"mig_enabled"`
			MIGDevices []struct {
				UUID string `json:"uuid"`
			} `json:"mig_devices"`
		} `json:"devices"`
		CUDAVisible struct {
			Value   string   `json:"value"`
			Visible []string `json:"visible"`
		} `json:"cuda_visible_devices"`
		Default []string `json:"default_selection"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v in\n%s", err, b.String())
	}
	want := twoGPUs()
	if !doc.Driver || len(doc.Devices) != 2 || doc.Devices[1].UUID != want[1].UUID || doc.Devices[0].BusID != "00000000:18:00.0" ||
		doc.Devices[0].CC != "9.0" || doc.Devices[0].Memory != 80<<30 || !doc.Devices[1].MIG ||
		len(doc.Devices[1].MIGDevices) != 1 || doc.Devices[1].MIGDevices[0].UUID != want[1].MIGDevices[0].UUID {
		t.Errorf("devices = %+v", doc.Devices)
	}
	if doc.CUDAVisible.Value != "1,0" || !slices.Equal(doc.CUDAVisible.Visible, []string{want[1].UUID, want[0].UUID}) {
		t.Errorf("cuda_visible_devices = %+v", doc.CUDAVisible)
	}
	if !slices.Equal(doc.Default, []string{"gpu0"}) {
		t.Errorf("default = %v", doc.Default)
	}
}

func TestDevicesCUDAVisibleTable(t *testing.T) {
	var b bytes.Buffer
	if err := writeInventory(&b, twoGPUs(), nil, "", getenv(map[string]string{"CUDA_VISIBLE_DEVICES": ""}), false, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CUDA_VISIBLE_DEVICES="" restricts this process to: none`, "would use: cpu:0", "hides every GPU"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestDevicesNoDriver(t *testing.T) {
	noDriver := fmt.Errorf("%w: nvmlInit: ERROR_LIBRARY_NOT_FOUND", gpu.ErrNoDriver)
	var b bytes.Buffer
	if err := writeInventory(&b, nil, noDriver, "", getenv(nil), false, nil); err != nil {
		t.Fatal(err)
	}
	if b.String() != NoDriverLine+"\n" {
		t.Errorf("table = %q, want the one no-driver line", b.String())
	}
	b.Reset()
	if err := writeInventory(&b, nil, noDriver, "", getenv(nil), true, nil); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["driver"] != false || doc["message"] != NoDriverLine || fmt.Sprint(doc["devices"]) != "[]" || fmt.Sprint(doc["default_selection"]) != "[cpu:0]" {
		t.Errorf("json = %v", doc)
	}
}

func TestDevicesBrokenNVML(t *testing.T) {
	broken := errors.New("NVML initialisation failed: ERROR_LIB_RM_VERSION_MISMATCH")
	var b bytes.Buffer
	if err := writeInventory(&b, nil, broken, "", getenv(nil), false, nil); !errors.Is(err, broken) || b.Len() != 0 {
		t.Fatalf("writeDevices = %v, printed %q; want the error and nothing printed", err, b.String())
	}
}

func TestCompareSMI(t *testing.T) {
	found := twoGPUs()[:1]
	match := "0, GPU-10000000-0000-4000-8000-000000000000, 0000:18:00.0\n"
	var b bytes.Buffer
	if err := compareSMI(&b, found, strings.NewReader(match)); err != nil || !strings.HasPrefix(b.String(), "ok: ") {
		t.Errorf("matching output: %v\n%s", err, b.String())
	}
	b.Reset()
	withMem := "0, GPU-10000000-0000-4000-8000-000000000000, 0000:18:00.0, 81559 MiB\n" // 80 GiB is 81920 MiB: within 1%
	if err := compareSMI(&b, found, strings.NewReader(withMem)); err != nil || !strings.HasPrefix(b.String(), "ok: ") {
		t.Errorf("matching output with memory: %v\n%s", err, b.String())
	}
	for name, smi := range map[string]string{
		"uuid":  "0, GPU-99999999-0000-4000-8000-000000000000, 00000000:18:00.0\n",
		"bus":   "0, GPU-10000000-0000-4000-8000-000000000000, 00000000:19:00.0\n",
		"count": match + "1, GPU-20000000-0000-4000-8000-000000000001, 00000000:2A:00.0\n",
		"shape": "0 GPU-1 x\n",
		"mem":   "0, GPU-10000000-0000-4000-8000-000000000000, 0000:18:00.0, 40960\n",
	} {
		b.Reset()
		if err := compareSMI(&b, found, strings.NewReader(smi)); err == nil {
			t.Errorf("%s difference not caught:\n%s", name, b.String())
		}
	}
}
