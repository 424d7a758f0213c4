package quantize

import (
	"encoding/binary"
	"fmt"
	"math"
)

// columns quantizes a row-major [k, n] float32 matrix to int8 with one
// symmetric scale per output column: scale[j] = max|w[:, j]| / 127 and
// q = round-half-even(w / scale), clamped to [-127, 127] (never -128, so
// the range is symmetric and VNNI's u8 x s8 products cannot saturate). An
// all-zero column gets scale 1: its values are 0 whatever the scale.
func columns(w []float32, k, n int) (q []byte, scale []float32, err error) {
	if len(w) != k*n {
		return nil, nil, fmt.Errorf("%d values for a [%d, %d] matrix", len(w), k, n)
	}
	scale = make([]float32, n)
	for i := range k {
		row := w[i*n : (i+1)*n]
		for j, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, nil, fmt.Errorf("value [%d, %d] is %v", i, j, v)
			}
			scale[j] = max(scale[j], float32(math.Abs(float64(v))))
		}
	}
	for j, m := range scale {
		if m == 0 {
			scale[j] = 1
		} else {
			scale[j] = m / 127
		}
	}
	q = make([]byte, k*n)
	for i, v := range w {
		r := math.RoundToEven(float64(v / scale[i%n]))
		q[i] = byte(int8(min(127, max(-127, r))))
	}
	return q, scale, nil
}

func float32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
