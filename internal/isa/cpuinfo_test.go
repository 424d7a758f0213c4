package isa

import (
	"os"
	"strings"
)

// cpuinfoFlags reads the first processor's flags from /proc/cpuinfo.
func cpuinfoFlags() (map[string]bool, error) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				out[f] = true
			}
			break
		}
	}
	return out, nil
}
