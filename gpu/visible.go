package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// cvdKey is read once per process by CUDA; Select rewrites it with UUIDs.
const cvdKey = "CUDA_VISIBLE_DEVICES"

// Visible applies CUDA's reading of CUDA_VISIBLE_DEVICES to the discovered
// GPUs: entries are NVML indices (the same numbering under
// CUDA_DEVICE_ORDER=PCI_BUS_ID, which is how launchers mean them),
// GPU-<uuid> or a unique prefix, or MIG-<uuid>; empty and Slurm's
// "NoDevFiles" hide every GPU; the first invalid entry ends the list.
func Visible(found []Device, getenv func(string) (string, bool)) Visibility {
	v, ok := getenv(cvdKey)
	if !ok {
		return Visibility{}
	}
	vis := Visibility{Set: true, Value: v}
	t := strings.TrimSpace(v)
	if t == "" || t == "NoDevFiles" {
		return vis
	}
	seen := map[string]bool{}
	for _, e := range strings.Split(t, ",") {
		e = strings.TrimSpace(e)
		d, why := resolveVisible(e, found)
		if why == "" && seen[unitKey(d)] {
			why = "repeats an earlier entry"
		}
		if why != "" {
			vis.Warnings = append(vis.Warnings, fmt.Sprintf(
				"%s=%q: entry %q %s; CUDA ignores it and every entry after it", cvdKey, v, e, why))
			break
		}
		seen[unitKey(d)] = true
		vis.Units = append(vis.Units, d)
	}
	return vis
}

// unitKey identifies a unit even when a lost GPU has no readable UUID.
func unitKey(d Device) string {
	if d.UUID != "" {
		return d.UUID
	}
	return "index:" + strconv.Itoa(d.Index)
}

// resolveVisible finds the unit an entry names, or says why it names none.
func resolveVisible(e string, found []Device) (Device, string) {
	if n, err := strconv.Atoi(e); err == nil && e[0] != '-' && e[0] != '+' {
		for _, d := range found {
			if d.Index == n {
				return d, ""
			}
		}
		return Device{}, "is not a GPU index NVML knows (" + indexRange(found) + ")"
	}
	var pool []Device
	switch {
	case hasPrefixFold(e, "GPU-"):
		pool = wholeGPUs(found)
	case hasPrefixFold(e, "MIG-"):
		pool = migDevices(found)
	default:
		return Device{}, "is not an index, GPU-<uuid> or MIG-<uuid>"
	}
	m := matchUUID(e, pool)
	switch len(m) {
	case 0:
		return Device{}, "matches no GPU NVML sees"
	case 1:
		return m[0], ""
	}
	return Device{}, fmt.Sprintf("is ambiguous (%d devices start with it)", len(m))
}

// matchUUID returns the devices whose UUID starts with prefix (case does not
// matter: UUIDs are hex). A bare "GPU-" or "MIG-" names nothing.
func matchUUID(prefix string, pool []Device) []Device {
	if len(prefix) <= len("GPU-") {
		return nil
	}
	var out []Device
	for _, d := range pool {
		if d.UUID != "" && hasPrefixFold(d.UUID, prefix) {
			out = append(out, d)
		}
	}
	return out
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func wholeGPUs(found []Device) []Device {
	var out []Device
	for _, d := range found {
		if !d.IsMIG() {
			out = append(out, d)
		}
	}
	return out
}

func migDevices(found []Device) []Device {
	var out []Device
	for _, d := range found {
		out = append(out, d.MIGDevices...)
	}
	return out
}

// indexRange says which indices exist, for error messages.
func indexRange(found []Device) string {
	switch len(found) {
	case 0:
		return "NVML sees no GPU"
	case 1:
		return fmt.Sprintf("NVML sees GPU %d only", found[0].Index)
	}
	return fmt.Sprintf("NVML sees GPUs %d-%d", found[0].Index, found[len(found)-1].Index)
}

// permitted says whether CUDA_VISIBLE_DEVICES lets the process use d. A MIG
// instance is permitted when the launcher granted it or its whole GPU.
func (v Visibility) permitted(d Device) bool {
	if !v.Set {
		return true
	}
	for _, u := range v.Units {
		if unitKey(u) == unitKey(d) || (d.IsMIG() && u.UUID == d.Parent) {
			return true
		}
	}
	return false
}
