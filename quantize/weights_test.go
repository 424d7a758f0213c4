package quantize

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestColumnsKnownValues(t *testing.T) {
	// Scales 0.25 and 1 are exact in binary, so x.5 steps are exact ties:
	// they round to even. Column 2 is all zeros; column 3 has an inexact
	// scale.
	w := []float32{
		31.75, 127, 0, 3,
		0.125, 0.5, 0, -3,
		0.375, 1.5, 0, 1,
		-0.625, -2.5, 0, 0,
	}
	q, scale, err := columns(w, 4, 4, SchemeS8)
	if err != nil {
		t.Fatal(err)
	}
	wantScale := []float32{0.25, 1, 1, 3.0 / 127}
	for j := range wantScale {
		if scale[j] != wantScale[j] {
			t.Errorf("scale[%d] = %g, want %g", j, scale[j], wantScale[j])
		}
	}
	want := []int8{
		127, 127, 0, 127,
		0, 0, 0, -127, // 0.5 steps round to even: 0
		2, 2, 0, 42, // 1.5 -> 2; 1/(3/127) = 42.33 -> 42
		-2, -2, 0, 0, // -2.5 -> -2
	}
	for i := range want {
		if int8(q[i]) != want[i] {
			t.Errorf("q[%d,%d] = %d, want %d (w %g, scale %g)", i/4, i%4, int8(q[i]), want[i], w[i], scale[i%4])
		}
	}
}

// TestColumnsErrorBound: on random weights every value dequantizes to
// within half a step of itself, every column uses its full range, and
// nothing falls outside [-127, 127]. (w / scale is computed in float32, so
// a quotient of up to 127 may be off by 127 * 2^-24 of a step.)
func TestColumnsErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const k, n = 300, 70
	w := make([]float32, k*n)
	for i := range w {
		w[i] = float32(r.NormFloat64()) * float32(1+i%n) * 0.01
	}
	q, scale, err := columns(w, k, n, SchemeS8)
	if err != nil {
		t.Fatal(err)
	}
	peak := make([]int, n)
	for i, b := range q {
		v := int8(b)
		if v == -128 {
			t.Fatalf("value %d quantized to -128", i)
		}
		j := i % n
		peak[j] = max(peak[j], int(math.Abs(float64(v))))
		if e := math.Abs(float64(w[i]) - float64(v)*float64(scale[j])); e > float64(scale[j])*(0.5+1e-5) {
			t.Fatalf("w[%d] = %g dequantizes to %g: error %g over half a step %g", i, w[i], float32(v)*scale[j], e, scale[j]/2)
		}
	}
	for j, p := range peak {
		if p != 127 {
			t.Errorf("column %d peaks at %d, not 127", j, p)
		}
	}
}

func TestColumnsRefusesNonFinite(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if _, _, err := columns([]float32{1, 2, bad, 4}, 2, 2, SchemeU8); err == nil {
			t.Errorf("%g accepted", bad)
		}
	}
	if _, _, err := columns([]float32{1, 2, 3}, 2, 2, SchemeU8); err == nil {
		t.Error("3 values for a [2, 2] matrix accepted")
	}
}
