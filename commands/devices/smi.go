package devices

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"qa-shard/gpu"
)

// compareSMI checks discovery against nvidia-smi's
// --query-gpu=index,uuid,pci.bus_id[,memory.total] --format=csv,noheader
// output: it prints one line per GPU and fails on any difference in count,
// index, UUID, bus id (compared after normalising case and the domain
// width: NVML "00000000:3B:00.0", legacy "0000:3b:00.0") or, when
// nvidia-smi's fourth column gives it, total memory (MiB, within 1%).
func compareSMI(w io.Writer, found []gpu.Device, smi io.Reader) error {
	var rows [][4]string
	sc := bufio.NewScanner(smi)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		parts := strings.Split(line, ",")
		if len(parts) != 3 && len(parts) != 4 {
			return fmt.Errorf("nvidia-smi line %q: want index, uuid, pci.bus_id[, memory.total]", line)
		}
		var r [4]string
		for i, p := range parts {
			r[i] = strings.TrimSpace(p)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading nvidia-smi output: %w", err)
	}
	bad := 0
	if len(rows) != len(found) {
		fmt.Fprintf(w, "MISMATCH: nvidia-smi lists %d GPUs, qa-shard %d\n", len(rows), len(found))
		bad++
	}
	for i, r := range rows {
		idx, _ := strconv.Atoi(r[0])
		if i >= len(found) {
			break
		}
		d := found[i]
		ok := idx == d.Index && r[1] == d.UUID && normBus(r[2]) == normBus(d.BusID) && sameMiB(r[3], d.MemoryTotal)
		verdict := "ok"
		if !ok {
			verdict, bad = "MISMATCH", bad+1
		}
		fmt.Fprintf(w, "%s: nvidia-smi %s %s %s %s | qa-shard %d %s %s %d MiB\n", verdict, r[0], r[1], r[2], r[3], d.Index, d.UUID, d.BusID, d.MemoryTotal>>20)
	}
	if bad > 0 {
		return fmt.Errorf("%d difference(s) between qa-shard devices and nvidia-smi", bad)
	}
	return nil
}

// sameMiB compares nvidia-smi's memory.total ("81559" or "81559 MiB"; ""
// when not asked) with NVML's total bytes, within 1%.
func sameMiB(smi string, total uint64) bool {
	if smi == "" {
		return true
	}
	mib, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(smi, "MiB")), 64)
	if err != nil {
		return false
	}
	have := float64(total) / (1 << 20)
	return math.Abs(mib-have) <= 0.01*max(mib, have)
}

func normBus(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if dom, rest, ok := strings.Cut(s, ":"); ok && len(dom) < 8 {
		s = strings.Repeat("0", 8-len(dom)) + dom + ":" + rest
	}
	return s
}
