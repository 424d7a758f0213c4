package quantize

import (
	"encoding/binary"
	"fmt"
	"math"

	"qa-shard/internal/onnxpb"
)

// Scheme is how the int8 weights are stored, which decides the kernel
// ONNX Runtime's CPU provider (MLAS) multiplies them with.
type Scheme string

const (
	// SchemeU8 stores each weight as uint8 with zero point 128 (the value
	// q+128 for q in [-127, 127]). The u8 x u8 kernels widen to 16 bits
	// before multiplying (vpmaddwd), so no product saturates on any x86
	// CPU and in any ONNX Runtime; the integer dot products are the same
	// as SchemeS8's, so where both are exact they give the same logits. But
	// MLAS has no VNNI kernel for u8 x u8: on the 4-layer model it is 1.27-
	// 1.45x float32 where s8 and s7 are 1.68-1.75x (AVX-512 VNNI, measured
	// by BenchmarkBaseInt8).
	SchemeU8 Scheme = "u8"
	// SchemeS8 stores int8 weights in [-127, 127], zero point 0. MLAS
	// multiplies u8 activations by s8 weights with VNNI (vpdpbusd) or AMX
	// where the CPU has them, exactly; on AVX2 and AVX-512 without VNNI it
	// adds pairs of products in saturating 16-bit lanes (vpmaddubsw), and
	// 255 x 127 x 2 overflows them: wrong logits.
	SchemeS8 Scheme = "s8"
	// SchemeS7 stores int8 weights in [-64, 64] (ONNX Runtime's
	// reduce_range): pairs of products stay within 16 bits on every CPU,
	// so every CPU takes its fast u8 x s8 kernel and computes the same
	// integers, at the cost of one bit of weight precision (on the demo
	// model 4 of 900 answers change, EM 96.8 -> 96.7). The default: right
	// on every x86 CPU, and as fast as s8 where s8 is right.
	SchemeS7 Scheme = "s7"
)

// Schemes lists the schemes Options.Scheme accepts, the default first.
var Schemes = []Scheme{SchemeS7, SchemeS8, SchemeU8}

// levels is the largest |q| of a scheme: the scale of a column is its
// largest |w| over levels.
func (s Scheme) levels() float32 {
	if s == SchemeS7 {
		return 64
	}
	return 127
}

// dataType is the ONNX element type of the stored weights and zero points.
func (s Scheme) dataType() int32 {
	if s == SchemeU8 {
		return onnxpb.Uint8
	}
	return onnxpb.Int8
}

// zeroPoint is the stored value of a weight of 0.
func (s Scheme) zeroPoint() byte {
	if s == SchemeU8 {
		return 128
	}
	return 0
}

// valid says whether s is a known scheme ("" means the default).
func (s Scheme) valid() bool {
	for _, k := range Schemes {
		if s == k {
			return true
		}
	}
	return false
}

// columns quantizes a row-major [k, n] float32 matrix with one symmetric
// scale per output column: scale[j] = max|w[:, j]| / L and
// q = round-half-even(w / scale), clamped to [-L, L], where L is the
// scheme's levels (127, or 64 for SchemeS7; never -128, so the range is
// symmetric). q is stored as int8, or as uint8 q+128 for SchemeU8. An
// all-zero column gets scale 1: its values are 0 whatever the scale.
func columns(w []float32, k, n int, s Scheme) (q []byte, scale []float32, err error) {
	if len(w) != k*n {
		return nil, nil, fmt.Errorf("%d values for a [%d, %d] matrix", len(w), k, n)
	}
	levels := s.levels()
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
			scale[j] = m / levels
		}
	}
	q = make([]byte, k*n)
	zero := int(s.zeroPoint())
	for i, v := range w {
		r := math.RoundToEven(float64(v / scale[i%n]))
		q[i] = byte(int(min(float64(levels), max(-float64(levels), r))) + zero)
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

// describe is the scheme as the model's metadata states it. The s8 text
// names the CPUs it needs: worker reads it back (SchemeOf) to warn when
// such a model runs on a CPU that would saturate.
func (s Scheme) describe() string {
	switch s {
	case SchemeS8:
		return "scheme s8: int8 per output column (scale max|w|/127, zero point 0), right only on CPUs with VNNI or AMX"
	case SchemeS7:
		return "scheme s7: int8 in [-64, 64] per output column (scale max|w|/64, zero point 0), right on every x86 CPU"
	}
	return "scheme u8: uint8 per output column (scale max|w|/127, zero point 128), right on every x86 CPU"
}
