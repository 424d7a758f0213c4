package checkpoint

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteFloat32 streams the tensor's elements to w as little-endian
// float32, converting F16 and BF16 exactly (every such value is a
// float32); with transpose, a 2-D [rows, cols] tensor is written as its
// [cols, rows] transpose (a torch Linear weight, [out, in], becomes the
// [in, out] matrix a MatMul takes). It buffers at most 64 KiB.
func (t *Tensor) WriteFloat32(w io.Writer, transpose bool) error {
	if t.DType.Size() == 0 {
		return fmt.Errorf("%w: %s: %s is %s, not a float tensor", ErrCheckpoint, t.File, t.Name, t.TypeName)
	}
	n := t.Elements()
	if int64(len(t.data)) != n*int64(t.DType.Size()) {
		return fmt.Errorf("%w: %s: %s has %d bytes for %d elements", ErrCheckpoint, t.File, t.Name, len(t.data), n)
	}
	at := func(i int64) float32 { return t.at(i) }
	if transpose {
		if len(t.Shape) != 2 {
			return fmt.Errorf("%w: %s: %s has shape %v, not a matrix", ErrCheckpoint, t.File, t.Name, t.Shape)
		}
		rows, cols := t.Shape[0], t.Shape[1]
		at = func(i int64) float32 { return t.at((i%rows)*cols + i/rows) }
	}
	buf := make([]byte, 0, 64<<10)
	for i := range n {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(at(i)))
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

// Float32s is the tensor's elements as float32: for small tensors (biases,
// norms) a builder needs the values of.
func (t *Tensor) Float32s() ([]float32, error) {
	var b bytesWriter
	if err := t.WriteFloat32(&b, false); err != nil {
		return nil, err
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// at is element i, as float32.
func (t *Tensor) at(i int64) float32 {
	switch t.DType {
	case F32:
		return math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
	case F16:
		return halfToFloat(binary.LittleEndian.Uint16(t.data[2*i:]))
	case BF16:
		return math.Float32frombits(uint32(binary.LittleEndian.Uint16(t.data[2*i:])) << 16)
	}
	return 0
}

// halfToFloat widens an IEEE 754 binary16 value exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// A subnormal half is a normal float: shift its fraction up.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}

func float32FromBytes(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
