package fleet

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"qa-shard/gpu"
)

// CompareSMI checks discovery against nvidia-smi's
// --query-gpu=index,uuid,pci.bus_id --format=csv,noheader output: it prints
// one line per GPU and fails on any difference in count,
// index, UUID or bus id (bus ids compared after normalising case and the
// domain width: NVML "00000000:3B:00.0", legacy "0000:3b:00.0").
func CompareSMI(w io.Writer, found []gpu.Device, smi io.Reader) error {
	var rows [][3]string
	sc := bufio.NewScanner(smi)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		parts := strings.Split(line, ",")
		if len(parts) != 3 {
			return fmt.Errorf("nvidia-smi line %q: want index, uuid, pci.bus_id", line)
		}
		rows = append(rows, [3]string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])})
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
		ok := idx == d.Index && r[1] == d.UUID && normBus(r[2]) == normBus(d.BusID)
		verdict := "ok"
		if !ok {
			verdict, bad = "MISMATCH", bad+1
		}
		fmt.Fprintf(w, "%s: nvidia-smi %s %s %s | qa-shard %d %s %s\n", verdict, r[0], r[1], r[2], d.Index, d.UUID, d.BusID)
	}
	if bad > 0 {
		return fmt.Errorf("%d difference(s) between qa-shard devices and nvidia-smi", bad)
	}
	return nil
}

func normBus(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if dom, rest, ok := strings.Cut(s, ":"); ok && len(dom) < 8 {
		s = strings.Repeat("0", 8-len(dom)) + dom + ":" + rest
	}
	return s
}
