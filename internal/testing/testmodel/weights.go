package testmodel

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"math"
)

// splitmix64 is tiny, fast and fully specified, so the same seed gives the
// same weights on every platform and Go version (math/rand/v2's generators
// would too, but their output is not promised to stay fixed forever).
type splitmix64 struct{ s uint64 }

func (r *splitmix64) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// seedFor derives a tensor's stream from its name, so a tensor's values do
// not depend on the order in which the graph builder creates tensors.
func seedFor(base uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := splitmix64{s: base ^ h.Sum64()}
	return r.next()
}

// normal returns an approximately normal value with mean 0 and std 1: the
// Irwin-Hall sum of four uniforms, rescaled. Every step before the final
// scaling is exact in float64 (products by 2^-32, sums of 32-bit fractions),
// so fused multiply-adds cannot change the result on any architecture. Its tails stop at about 3.5 std,
// much like the truncated normal some BERT initialisers use.
func (r *splitmix64) normal() float32 {
	const inv32 = 1.0 / (1 << 32)
	a, b := r.next(), r.next()
	u := float64(uint32(a))*inv32 + float64(a>>32)*inv32 +
		float64(uint32(b))*inv32 + float64(b>>32)*inv32
	return float32((u - 2) * math.Sqrt(3))
}

// fillNormal writes n float32 values drawn with the given std, in chunks, so
// a 94 MB embedding table costs 64 KB of memory. The first zeroPrefix values
// are zero, which is how BERT initialises the [PAD] row of its embeddings.
func fillNormal(seed uint64, n int, std float32, zeroPrefix int) func(io.Writer) error {
	return func(w io.Writer) error {
		r := splitmix64{s: seed}
		buf := make([]byte, 0, 64<<10)
		for i := 0; i < n; i++ {
			v := float32(0)
			if i >= zeroPrefix {
				v = r.normal() * std
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	}
}

// fillConst writes n copies of v (LayerNorm gamma and the zero biases).
func fillConst(n int, v float32) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(float32Bytes(repeat(n, v)...))
		return err
	}
}

func repeat(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// float16Bits converts to IEEE 754 binary16 with round-to-nearest-even, the
// rounding ONNX Runtime's Cast uses, so a float16 constant written here holds
// the value a float16 model exported by PyTorch would.
func float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN: keep it quiet and non-zero
		return sign | 0x7e00
	case exp >= 0x1f: // overflow or infinity
		return sign | 0x7c00
	case exp <= 0: // subnormal half or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // a carry into the exponent is still the right answer
	}
	return sign | uint16(half)
}

// float16Value decodes binary16; the tests use it to read float16 logits.
func float16Value(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case 0:
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
