package isa

import (
	"bufio"
	"os"
	"strings"
)

// CPUName is the processor's name from /proc/cpuinfo ("unknown" elsewhere).
// It does not tell the instruction set: one name ("AMD EPYC") covers CPUs
// with and without AVX-512 VNNI.
func CPUName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
