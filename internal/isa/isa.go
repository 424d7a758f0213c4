// Package isa names the x86 instruction sets that decide how ONNX
// Runtime's CPU provider multiplies int8 matrices, so that every int8
// figure, cache entry and warning can say which kind of CPU it is about.
package isa

import "golang.org/x/sys/cpu"

// Set is what the CPU offers for 8-bit dot products. The fields are set
// only where the operating system enables the registers too (x/sys/cpu
// checks XCR0).
type Set struct {
	AVX2    bool
	AVX512  bool // AVX-512 F and BW, the core of MLAS's AVX-512 kernels
	VNNI    bool // AVX-512 VNNI or AVX-VNNI: vpdpbusd, u8 x s8 into 32 bits
	AMX     bool // AMX tiles with int8 (tdpbusd)
	Unknown bool // not an x86-64 CPU: none of the above is known
}

// Detect reads this CPU's set.
func Detect() Set {
	if !cpu.X86.HasAVX && !cpu.X86.HasSSE41 {
		return Set{Unknown: true}
	}
	return Set{
		AVX2:   cpu.X86.HasAVX2,
		AVX512: cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW,
		VNNI:   cpu.X86.HasAVX512VNNI || cpu.X86.HasAVXVNNI,
		AMX:    cpu.X86.HasAMXTile && cpu.X86.HasAMXInt8,
	}
}

// String is the widest int8 path, as figures and cache keys name it:
// "AMX", "AVX-512 VNNI", "AVX-VNNI", "AVX-512", "AVX2" or "SSE4.1".
func (s Set) String() string {
	switch {
	case s.Unknown:
		return "not x86"
	case s.AMX:
		return "AMX"
	case s.VNNI && s.AVX512:
		return "AVX-512 VNNI"
	case s.VNNI:
		return "AVX-VNNI"
	case s.AVX512:
		return "AVX-512"
	case s.AVX2:
		return "AVX2"
	}
	return "SSE4.1"
}

// SaturatesU8S8 says whether ONNX Runtime multiplies u8 activations by
// s8 weights here with vpmaddubsw (SSE4.1, AVX2, AVX-512 without VNNI),
// which adds pairs of products in signed 16-bit lanes: with full-range
// weights (|q| up to 127) a pair reaches 2 x 255 x 127 = 64,770 and
// saturates at 32,767. VNNI and AMX accumulate in 32 bits.
func (s Set) SaturatesU8S8() bool {
	return !s.Unknown && !s.VNNI && !s.AMX
}
