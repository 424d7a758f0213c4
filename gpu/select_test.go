package gpu

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

type selectCase struct {
	name  string
	spec  string
	env   map[string]string
	names []string // Device.Name() of the selection, in order
	err   string   // substring of the error (ErrSelection)
	warn  string   // substring of one warning
}

// runSelect checks one case: names, device ids, the environment and warnings.
func runSelect(t *testing.T, found []Device, foundErr error, tc selectCase) {
	t.Helper()
	sel, err := Select(tc.spec, found, foundErr, env(tc.env))
	if tc.err != "" {
		if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("Select(%q) error = %v; want ErrSelection containing %q", tc.spec, err, tc.err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Select(%q): %v", tc.spec, err)
	}
	var names, uuids []string
	for i, d := range sel.Devices {
		names = append(names, d.Name())
		uuids = append(uuids, d.UUID)
		if d.Kind == KindGPU && d.DeviceID != i {
			t.Errorf("device %d has DeviceID %d", i, d.DeviceID)
		}
	}
	if !slices.Equal(names, tc.names) {
		t.Errorf("Select(%q) = %v, want %v", tc.spec, names, tc.names)
	}
	wantEnv := []EnvVar(nil)
	if sel.OnGPU() {
		wantEnv = []EnvVar{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_VISIBLE_DEVICES", strings.Join(uuids, ",")}}
	}
	if !slices.Equal(sel.Env, wantEnv) {
		t.Errorf("Env = %v, want %v", sel.Env, wantEnv)
	}
	joined := strings.Join(sel.Warnings, "\n")
	if (tc.warn == "") != (len(sel.Warnings) == 0) || !strings.Contains(joined, tc.warn) {
		t.Errorf("warnings = %q, want one containing %q", sel.Warnings, tc.warn)
	}
}

func gpuNames(idx ...int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, fmt.Sprintf("gpu%d", i))
	}
	return out
}

func TestSelectGrammar(t *testing.T) {
	found := newMachine(t, "h100", 8).discover(t)
	for _, tc := range []selectCase{
		{name: "default", spec: "", names: gpuNames(0, 1, 2, 3, 4, 5, 6, 7)},
		{name: "all", spec: "all", names: gpuNames(0, 1, 2, 3, 4, 5, 6, 7)},
		{name: "indices", spec: "0,1", names: gpuNames(0, 1)},
		{name: "order kept", spec: " 3, 1 ", names: gpuNames(3, 1)},
		{name: "uuid", spec: uuidOf(5), names: gpuNames(5)},
		{name: "prefix", spec: "GPU-c0ffee05", names: gpuNames(5)},
		{name: "prefix any case", spec: "gpu-C0FFEE06", names: gpuNames(6)},
		{name: "uuid and index", spec: "GPU-c0ffee07,2", names: gpuNames(7, 2)},
		{name: "ambiguous prefix", spec: "GPU-c0ffee", err: "ambiguous"},
		{name: "bare GPU-", spec: "GPU-", err: "no device has a UUID"},
		{name: "unknown uuid", spec: "GPU-dead", err: "no device has a UUID"},
		{name: "duplicate index", spec: "0,0", err: `"0" and "0" both name gpu0`},
		{name: "duplicate via uuid", spec: "0,GPU-c0ffee00", err: "both name gpu0"},
		{name: "unknown index", spec: "9", err: "unknown GPU index 9: NVML sees GPUs 0-7"},
		{name: "negative index", spec: "-1", err: "unknown GPU index -1"},
		{name: "empty entry", spec: "0,,1", err: "empty entry"},
		{name: "garbage", spec: "first", err: "not a GPU index"},
		{name: "cpu mixed", spec: "0,cpu", err: "cpu cannot be mixed"},
		{name: "cpu", spec: "cpu", names: []string{"cpu:0"}},
		{name: "cpu:N", spec: "cpu:3", names: []string{"cpu:0", "cpu:1", "cpu:2"}},
		{name: "cpu:0", spec: "cpu:0", err: "cpu:N"},
		{name: "MIG on a machine without", spec: "MIG-0100", err: "no device has a UUID"},
	} {
		t.Run(tc.name, func(t *testing.T) { runSelect(t, found, nil, tc) })
	}
}

// TestSelectCPUInAList: "cpu" as an item of a list is refused for what it
// is, with or without a driver (no driver once answered "cpu,cpu" with
// "asks for GPUs").
func TestSelectCPUInAList(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"cpu,cpu", "for 2 CPU sessions give --devices cpu:2"},
		{"cpu, cpu, cpu", "--devices cpu:3"},
		{"0,cpu", "cpu cannot be mixed with GPUs"},
		{"cpu:2,0", "cpu:2 is a whole --devices value"},
		{"all,0", "all is a whole --devices value"},
	} {
		for _, driver := range []bool{false, true} {
			var found []Device
			foundErr := error(ErrNoDriver)
			if driver {
				found, foundErr = newMachine(t, "h100", 2).discover(t), nil
			}
			_, err := Select(tc.spec, found, foundErr, func(string) (string, bool) { return "", false })
			if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "asks for GPUs") {
				t.Errorf("Select(%q), driver %v: %v\nwant it to say %q", tc.spec, driver, err, tc.want)
			}
		}
	}
}

func TestSelectCUDAVisibleDevices(t *testing.T) {
	found := newMachine(t, "h100", 8).discover(t)
	cvd := func(v string) map[string]string { return map[string]string{"CUDA_VISIBLE_DEVICES": v} }
	for _, tc := range []selectCase{
		{name: "indices bound all", env: cvd("2,3"), names: gpuNames(2, 3)},
		{name: "launcher order kept", env: cvd("5,1"), names: gpuNames(5, 1)},
		{name: "explicit inside", spec: "3", env: cvd("2,3"), names: gpuNames(3)},
		{name: "explicit outside", spec: "1", env: cvd("2,3"), err: "gpu1 (" + uuidOf(1) + ") is outside CUDA_VISIBLE_DEVICES=\"2,3\""},
		{name: "uuids and prefix", env: cvd(uuidOf(4) + ",GPU-c0ffee06"), names: gpuNames(4, 6)},
		{name: "empty hides all", env: cvd(""), names: []string{"cpu:0"}, warn: "hides every GPU"},
		{name: "empty, explicit", spec: "0", env: cvd(""), err: "it hides every GPU"},
		{name: "NoDevFiles", env: cvd("NoDevFiles"), names: []string{"cpu:0"}, warn: "hides every GPU"},
		{name: "invalid index truncates", env: cvd("1,9,2"), names: gpuNames(1), warn: `entry "9" is not a GPU index NVML knows`},
		{name: "invalid word truncates", env: cvd("1,bogus,2"), names: gpuNames(1), warn: `entry "bogus"`},
		{name: "duplicate truncates", env: cvd("1,1,2"), names: gpuNames(1), warn: "repeats an earlier entry"},
		{name: "ambiguous prefix truncates", env: cvd("3,GPU-c0ffee,4"), names: gpuNames(3), warn: "ambiguous"},
		{name: "-1 hides all", env: cvd("-1"), names: []string{"cpu:0"}, warn: "CUDA ignores it"},
		{name: "truncated, explicit after the cut", spec: "2", env: cvd("1,x,2"), err: "outside"},
		{name: "cpu ignores it", spec: "cpu:2", env: cvd("0"), names: []string{"cpu:0", "cpu:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSelect(t, found, nil, tc) })
	}
}

func TestSelectMIG(t *testing.T) {
	m := newMachine(t, "h100", 4)
	m.enableMIG(1, 2)
	found := m.discover(t)
	mig0, mig1 := migOf(1, 0), migOf(1, 1)
	for _, tc := range []selectCase{
		{name: "all skips MIG GPU", names: gpuNames(0, 2, 3), warn: "gpu1 (" + uuidOf(1) + ") left out: MIG is enabled and one process can use one MIG device"},
		{name: "MIG GPU by index", spec: "1", err: "gpu1 has MIG enabled and one process can use one MIG device: pass one of " + mig0},
		{name: "single MIG", spec: mig1, names: []string{"gpu1/mig1"}},
		{name: "single MIG by prefix", spec: "MIG-0100", names: []string{"gpu1/mig0"}},
		{name: "two MIG", spec: mig0 + "," + mig1, err: "one process can use one MIG device"},
		{name: "MIG with GPU", spec: "0," + mig0, err: "one process can use one MIG device"},
		{name: "ambiguous MIG", spec: "MIG-01", err: "ambiguous"},
		{name: "launcher gave one MIG", env: map[string]string{"CUDA_VISIBLE_DEVICES": mig1}, names: []string{"gpu1/mig1"}},
		{name: "launcher gave MIG, asked other", spec: mig0, env: map[string]string{"CUDA_VISIBLE_DEVICES": mig1}, err: "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) { runSelect(t, found, nil, tc) })
	}
}

func TestSelectOnlyMIG(t *testing.T) {
	m := newMachine(t, "a100", 2)
	m.enableMIG(0, 2)
	m.enableMIG(1, 1)
	runSelect(t, m.discover(t), nil, selectCase{spec: "all", err: "no whole GPU to run on: MIG is enabled and one process can use one MIG device; pass one of " + migOf(0, 0)})
}

func TestSelectNoDriver(t *testing.T) {
	_, noDriver := discoverWith(noDriverLib())
	if !errors.Is(noDriver, ErrNoDriver) {
		t.Fatalf("no-driver library gave %v", noDriver)
	}
	for _, tc := range []selectCase{
		{name: "default", spec: "", names: []string{"cpu:0"}, warn: "no NVIDIA driver found"},
		{name: "all", spec: "all", names: []string{"cpu:0"}, warn: "no NVIDIA driver found"},
		{name: "explicit index", spec: "0,1", err: "asks for GPUs, but no NVIDIA driver was found"},
		{name: "explicit uuid", spec: uuidOf(0), err: "no NVIDIA driver was found"},
		{name: "cpu:2", spec: "cpu:2", names: []string{"cpu:0", "cpu:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSelect(t, nil, noDriver, tc) })
	}
}

// NVML present but broken: only an explicit CPU run proceeds.
func TestSelectBrokenNVML(t *testing.T) {
	broken := errors.New("NVML initialisation failed: ERROR_LIB_RM_VERSION_MISMATCH")
	runSelect(t, nil, broken, selectCase{spec: "", err: "ERROR_LIB_RM_VERSION_MISMATCH (use --devices cpu"})
	runSelect(t, nil, broken, selectCase{spec: "cpu", names: []string{"cpu:0"}})
}

func TestSelectNoGPU(t *testing.T) {
	runSelect(t, []Device{}, nil, selectCase{spec: "", names: []string{"cpu:0"}, warn: "NVML found no GPU"})
	runSelect(t, []Device{}, nil, selectCase{spec: "0", err: "NVML sees no GPU"})
}

func TestSelectLostGPU(t *testing.T) {
	m := newMachine(t, "h100", 3)
	m.tel[1].pciRet = nvml.ERROR_GPU_IS_LOST
	found := m.discover(t)
	runSelect(t, found, nil, selectCase{spec: "all", names: gpuNames(0, 2), warn: "gpu1 left out: GPU is lost"})
	runSelect(t, found, nil, selectCase{spec: "0,1", err: "gpu1 cannot be used: GPU is lost"})
	m.tel[0].pciRet, m.tel[2].pciRet = nvml.ERROR_GPU_IS_LOST, nvml.ERROR_GPU_IS_LOST
	runSelect(t, m.discover(t), nil, selectCase{spec: "all", err: "no usable GPU"})
}

func TestSelectionApply(t *testing.T) {
	found := newMachine(t, "h100", 2).discover(t)
	sel, err := Select("1,0", found, nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := sel.Apply(func(k, v string) error { got[k] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	if got["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" || got["CUDA_VISIBLE_DEVICES"] != uuidOf(1)+","+uuidOf(0) {
		t.Fatalf("applied %v", got)
	}
	fail := errors.New("read-only environment")
	if err := sel.Apply(func(string, string) error { return fail }); !errors.Is(err, fail) {
		t.Fatalf("Apply error = %v", err)
	}
}

// TestSimulated: "sim" and "sim:..." ask for simulated replicas, which
// Select leaves to the caller's simulator; nothing else does.
func TestSimulated(t *testing.T) {
	if !Simulated(" sim:8") || !Simulated("sim") || Simulated("simulated") || Simulated("cpu:2") || Simulated("all") {
		t.Fatal("Simulated")
	}
}

// TestCPUSessions: cpu:N pins N sessions; nothing else pins any.
func TestCPUSessions(t *testing.T) {
	for spec, want := range map[string]int{"cpu:4": 4, " cpu:256": 256, "cpu:257": 0, "cpu:x": 0, "cpu": 0, "all": 0, "0,1": 0, "sim:2": 0} {
		if got := CPUSessions(spec); got != want {
			t.Errorf("CPUSessions(%q) = %d, want %d", spec, got, want)
		}
	}
}
