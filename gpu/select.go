package gpu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Select turns a --devices value into the devices to start replicas on and
// the environment CUDA must see. found and foundErr are what discovery
// returned (NVML.Devices, or the error of New); getenv is os.LookupEnv in the
// program.
//
// Grammar: "" or "all" (every usable whole GPU; one replica on the CPU, with
// a warning, when there is no driver or no visible GPU), a comma list of
// NVML indices ("0,1", nvidia-smi's numbering) and GPU-<uuid> or unique
// prefixes, a single MIG-<uuid>, "cpu", "cpu:N". The user's order is kept;
// replica i gets CUDA device_id i, because Env lists the chosen UUIDs in
// that order with CUDA_DEVICE_ORDER=PCI_BUS_ID.
func Select(spec string, found []Device, foundErr error, getenv func(string) (string, bool)) (Selection, error) {
	spec = strings.TrimSpace(spec)
	if err := cpuInList(spec); err != nil {
		return Selection{}, err
	}
	if spec == "cpu" || strings.HasPrefix(spec, "cpu:") {
		return cpuSelect(spec)
	}
	auto := spec == "" || spec == "all"
	switch {
	case foundErr != nil && !errors.Is(foundErr, ErrNoDriver):
		return Selection{}, fmt.Errorf("%w: --devices %q: %w (use --devices cpu to run without GPUs)", ErrSelection, spec, foundErr)
	case foundErr != nil && auto:
		return Selection{Devices: cpus(1), Warnings: []string{
			"no NVIDIA driver found (NVML could not be loaded): running on the CPU (--devices cpu:N pins N sessions)"}}, nil
	case foundErr != nil:
		return Selection{}, fmt.Errorf("%w: --devices %q asks for GPUs, but no NVIDIA driver was found (NVML could not be loaded): install the driver, or use --devices cpu", ErrSelection, spec)
	}
	vis := Visible(found, getenv)
	var sel Selection
	var err error
	if auto {
		sel, err = selectAll(found, vis)
	} else {
		sel, err = selectList(spec, found, vis)
	}
	if err != nil {
		return Selection{}, err
	}
	sel.Warnings = append(vis.Warnings, sel.Warnings...)
	if !sel.OnGPU() {
		return sel, nil
	}
	uuids := make([]string, len(sel.Devices))
	for i := range sel.Devices {
		sel.Devices[i].DeviceID = i
		uuids[i] = sel.Devices[i].UUID
	}
	sel.Env = []EnvVar{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {cvdKey, strings.Join(uuids, ",")}}
	return sel, nil
}

// Simulated says whether a --devices value asks for simulated replicas
// ("sim", "sim:..."): Select does not take those; the caller's simulator
// builds them (worker/sim reads the rest of the spec).
func Simulated(spec string) bool {
	s := strings.TrimSpace(spec)
	return s == "sim" || strings.HasPrefix(s, "sim:")
}

// CPUSessions is the number of CPU sessions a "cpu:N" --devices value
// pins (N); 0 for any other value, or one Select refuses.
func CPUSessions(spec string) int {
	spec = strings.TrimSpace(spec)
	if !strings.HasPrefix(spec, "cpu:") {
		return 0
	}
	sel, err := cpuSelect(spec)
	if err != nil {
		return 0
	}
	return len(sel.Devices)
}

// cpuInList refuses "cpu" (or "cpu:N", "all") as one item of a comma
// list ("cpu,cpu", "0,cpu"): the CPU is asked for alone, with its session
// count.
func cpuInList(spec string) error {
	items := strings.Split(spec, ",")
	if len(items) < 2 {
		return nil
	}
	n := 0
	for _, it := range items {
		it = strings.TrimSpace(it)
		switch {
		case it == "cpu":
			n++
		case strings.HasPrefix(it, "cpu:"), it == "all":
			return fmt.Errorf("%w: --devices %q: %s is a whole --devices value, not an item of a list: give it alone", ErrSelection, spec, it)
		}
	}
	if n == 0 {
		return nil
	}
	if n == len(items) {
		return fmt.Errorf("%w: --devices %q: the CPU is one device; for %d CPU sessions give --devices cpu:%d (or --devices cpu to measure the best layout)", ErrSelection, spec, n, n)
	}
	return fmt.Errorf("%w: --devices %q: cpu cannot be mixed with GPUs in one run; give the GPUs alone, or --devices cpu", ErrSelection, spec)
}

func cpuSelect(spec string) (Selection, error) {
	if spec == "cpu" {
		return Selection{Devices: cpus(1)}, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(spec, "cpu:"))
	if err != nil || n < 1 || n > 256 {
		return Selection{}, fmt.Errorf("%w: --devices %q: expected cpu:N with N between 1 and 256", ErrSelection, spec)
	}
	return Selection{Devices: cpus(n)}, nil
}

// selectAll picks every usable whole GPU the process may see, in NVML order
// or, when CUDA_VISIBLE_DEVICES is set, in the launcher's order.
// MIG-enabled GPUs are left out (one process can use one MIG device), unless
// the only thing visible is exactly one MIG device, as under a Slurm job
// granted one MIG slice.
func selectAll(found []Device, vis Visibility) (Selection, error) {
	pool := found
	if vis.Set {
		pool = vis.Units
	}
	var sel Selection
	var migs, faulty []Device
	for _, d := range pool {
		switch {
		case d.Fault != "":
			faulty = append(faulty, d)
			sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s left out: %s", d.Name(), d.Fault))
		case d.IsMIG():
			migs = append(migs, d)
		case d.MIGEnabled:
			migs = append(migs, d.MIGDevices...)
			sel.Warnings = append(sel.Warnings, fmt.Sprintf(
				"%s (%s) left out: MIG is enabled and one process can use one MIG device; pass --devices MIG-<uuid> to use one of its %d (qa-shard devices lists them)",
				d.Name(), d.UUID, len(d.MIGDevices)))
		default:
			sel.Devices = append(sel.Devices, d)
		}
	}
	if len(sel.Devices) > 0 {
		return sel, nil
	}
	switch {
	case len(migs) == 1:
		return Selection{Devices: migs}, nil
	case len(migs) > 1:
		return Selection{}, fmt.Errorf("%w: no whole GPU to run on: MIG is enabled and one process can use one MIG device; pass one of %s, or --devices cpu",
			ErrSelection, uuidList(migs))
	case len(faulty) > 0:
		return Selection{}, fmt.Errorf("%w: no usable GPU (%s); use --devices cpu to run on the CPU", ErrSelection, strings.Join(sel.Warnings, "; "))
	case vis.Set && len(found) > 0:
		sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s=%q hides every GPU: running on the CPU", cvdKey, vis.Value))
	default:
		sel.Warnings = append(sel.Warnings, "NVML found no GPU: running on the CPU")
	}
	sel.Devices = cpus(1)
	return sel, nil
}

// selectList resolves an explicit comma list. Every mistake is an error: a
// run that quietly lands on other GPUs than asked is worse than no run.
func selectList(spec string, found []Device, vis Visibility) (Selection, error) {
	toks := strings.Split(spec, ",")
	var sel Selection
	seen := map[string]string{}
	for _, tok := range toks {
		tok = strings.TrimSpace(tok)
		d, err := resolveSpec(tok, found)
		if err != nil {
			return Selection{}, fmt.Errorf("%w: --devices %q: %w", ErrSelection, spec, err)
		}
		bad := func(format string, a ...any) (Selection, error) {
			return Selection{}, fmt.Errorf("%w: --devices %q: %s", ErrSelection, spec, fmt.Sprintf(format, a...))
		}
		switch {
		case d.Fault != "":
			return bad("%s cannot be used: %s", d.Name(), d.Fault)
		case d.IsMIG() && len(toks) > 1:
			return bad("one process can use one MIG device: give %s alone (run one qa-shard per MIG device)", tok)
		case d.MIGEnabled:
			return bad("%s has MIG enabled and one process can use one MIG device: pass one of %s", d.Name(), uuidList(d.MIGDevices))
		case seen[unitKey(d)] != "":
			return bad("%q and %q both name %s", seen[unitKey(d)], tok, d.Name())
		case !vis.permitted(d):
			return bad("%s (%s) is outside %s=%q, set for this process by its launcher (Slurm?); choose among %s",
				d.Name(), d.UUID, cvdKey, vis.Value, visibleNames(vis))
		}
		seen[unitKey(d)] = tok
		sel.Devices = append(sel.Devices, d)
	}
	return sel, nil
}

// resolveSpec finds the device one --devices entry names.
func resolveSpec(tok string, found []Device) (Device, error) {
	if tok == "" {
		return Device{}, errors.New("empty entry")
	}
	if n, err := strconv.Atoi(tok); err == nil {
		for _, d := range found {
			if d.Index == n {
				return d, nil
			}
		}
		return Device{}, fmt.Errorf("unknown GPU index %d: %s (qa-shard devices lists them)", n, indexRange(found))
	}
	var pool []Device
	switch {
	case hasPrefixFold(tok, "GPU-"):
		pool = wholeGPUs(found)
	case hasPrefixFold(tok, "MIG-"):
		pool = migDevices(found)
	case strings.HasPrefix(tok, "cpu"):
		return Device{}, errors.New("cpu cannot be mixed with GPUs")
	default:
		return Device{}, fmt.Errorf("%q is not a GPU index, GPU-<uuid>, MIG-<uuid>, all, cpu or cpu:N", tok)
	}
	m := matchUUID(tok, pool)
	switch len(m) {
	case 0:
		return Device{}, fmt.Errorf("no device has a UUID starting with %q (qa-shard devices lists them)", tok)
	case 1:
		return m[0], nil
	}
	return Device{}, fmt.Errorf("%q is ambiguous: it starts %s", tok, uuidList(m))
}

func uuidList(ds []Device) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.UUID + " (" + d.Name() + ")"
	}
	return strings.Join(s, ", ")
}

func visibleNames(v Visibility) string {
	if len(v.Units) == 0 {
		return "nothing: it hides every GPU"
	}
	s := make([]string, len(v.Units))
	for i, d := range v.Units {
		s[i] = d.Name()
	}
	return strings.Join(s, ", ")
}
