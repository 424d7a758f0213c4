package isa

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct {
		s    Set
		name string
		sat  bool
	}{
		{Set{AVX2: true}, "AVX2", true},
		{Set{AVX2: true, AVX512: true}, "AVX-512", true},
		{Set{AVX2: true, AVX512: true, VNNI: true}, "AVX-512 VNNI", false},
		{Set{AVX2: true, VNNI: true}, "AVX-VNNI", false},
		{Set{AVX2: true, AVX512: true, VNNI: true, AMX: true}, "AMX", false},
		{Set{}, "SSE4.1", true},
		{Set{Unknown: true}, "not x86", false},
	} {
		if got := c.s.String(); got != c.name {
			t.Errorf("%+v is %q, want %q", c.s, got, c.name)
		}
		if got := c.s.SaturatesU8S8(); got != c.sat {
			t.Errorf("%+v: SaturatesU8S8 %v, want %v", c.s, got, c.sat)
		}
	}
}

// TestDetectAgreesWithCPUInfo: what Detect finds is what the kernel
// reports in /proc/cpuinfo's flags (the same CPUID bits, read twice).
func TestDetectAgreesWithCPUInfo(t *testing.T) {
	flags, err := cpuinfoFlags()
	if err != nil {
		t.Skipf("no /proc/cpuinfo here: %v", err)
	}
	s := Detect()
	for name, got := range map[string]bool{"avx2": s.AVX2, "avx512bw": s.AVX512} {
		if flags[name] != got {
			t.Errorf("Detect says %s %v; /proc/cpuinfo says %v", name, got, flags[name])
		}
	}
	if vnni := flags["avx512_vnni"] || flags["avx_vnni"]; vnni != s.VNNI {
		t.Errorf("Detect says VNNI %v; /proc/cpuinfo says %v", s.VNNI, vnni)
	}
	t.Logf("this CPU: %s (AVX2 %v, AVX-512 %v, VNNI %v, AMX %v)", s, s.AVX2, s.AVX512, s.VNNI, s.AMX)
}
