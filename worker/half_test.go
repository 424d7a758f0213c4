package worker

import (
	"math"
	"testing"
)

func TestHalfToFloatTable(t *testing.T) {
	cases := []struct {
		name string
		h    uint16
		want float32
	}{
		{"zero", 0x0000, 0},
		{"one", 0x3c00, 1},
		{"minus two", 0xc000, -2},
		{"one third", 0x3555, 0.333251953125},
		{"largest", 0x7bff, 65504},
		{"smallest normal", 0x0400, 1.0 / (1 << 14)},
		{"smallest subnormal", 0x0001, 1.0 / (1 << 24)},
		{"largest subnormal", 0x03ff, 1023.0 / (1 << 24)},
		{"negative subnormal", 0x8001, -1.0 / (1 << 24)},
		{"inf", 0x7c00, float32(math.Inf(1))},
		{"minus inf", 0xfc00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := halfToFloat(c.h); math.Float32bits(got) != math.Float32bits(c.want) {
				t.Errorf("halfToFloat(%#04x) = %g (%#08x), want %g", c.h, got, math.Float32bits(got), c.want)
			}
		})
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(-0) = %g, want -0", got)
	}
	for _, h := range []uint16{0x7e00, 0x7c01, 0xfe00, 0x7fff} {
		got := halfToFloat(h)
		if !math.IsNaN(float64(got)) || math.Signbit(float64(got)) != (h&0x8000 != 0) {
			t.Errorf("halfToFloat(%#04x) = %g, want NaN with the same sign", h, got)
		}
	}
}

// TestHalfToFloatAll checks every binary16 pattern against the value its
// fields define, computed in float64, and that widening round-trips.
func TestHalfToFloatAll(t *testing.T) {
	for i := range 1 << 16 {
		h := uint16(i)
		sign, exp, frac := h>>15, int(h>>10&0x1f), float64(h&0x3ff)
		got := halfToFloat(h)
		if exp == 0x1f {
			if frac == 0 && !math.IsInf(float64(got), 1-2*int(sign)) || frac != 0 && !math.IsNaN(float64(got)) {
				t.Fatalf("halfToFloat(%#04x) = %g", h, got)
			}
			continue
		}
		v := math.Ldexp(frac, -24) // subnormal
		if exp > 0 {
			v = math.Ldexp(1+frac/1024, exp-15)
		}
		if sign == 1 {
			v = -v
		}
		if math.Float32bits(got) != math.Float32bits(float32(v)) {
			t.Fatalf("halfToFloat(%#04x) = %g, want %g", h, got, v)
		}
		if back := floatToHalf(got); back != h {
			t.Fatalf("halfToFloat(%#04x) = %g narrows back to %#04x", h, got, back)
		}
	}
}

// floatToHalf narrows a float32 that binary16 represents exactly (the
// only kind halfToFloat yields), inf and NaN included.
func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp, frac := int(b>>23&0xff), b&0x7fffff
	switch {
	case exp == 0xff:
		return sign | 0x7c00 | uint16(frac>>13)
	case exp == 0 && frac == 0:
		return sign
	}
	e := exp - 127 + 15
	if e >= 1 {
		return sign | uint16(e)<<10 | uint16(frac>>13)
	}
	// subnormal half: value = m * 2^-24 with m = 1.frac * 2^(exp-127+24)
	m := (frac | 1<<23) >> (23 - (exp - 127 + 24))
	return sign | uint16(m)
}
