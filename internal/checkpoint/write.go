package checkpoint

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// NewTensor is one float32 tensor to write: its shape, and a function
// that writes its elements (little-endian float32, row-major).
type NewTensor struct {
	Name  string
	Shape []int64
	Fill  func(w io.Writer) error
}

// WriteSafetensors writes tensors as one safetensors file (F32, in the
// order given, with metadata {"format": "pt"} as transformers writes it),
// streaming each tensor's elements from its Fill.
func WriteSafetensors(w io.Writer, tensors []NewTensor) error {
	type info struct {
		DType   string   `json:"dtype"`
		Shape   []int64  `json:"shape"`
		Offsets [2]int64 `json:"data_offsets"`
	}
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var at int64
	sizes := make([]int64, len(tensors))
	for i, t := range tensors {
		n := int64(4)
		for _, d := range t.Shape {
			n *= d
		}
		sizes[i] = n
		header[t.Name] = info{DType: "F32", Shape: slices.Clone(t.Shape), Offsets: [2]int64{at, at + n}}
		at += n
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 { // the reference writer pads the header to 8 bytes
		h = append(h, ' ')
	}
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], uint64(len(h)))
	if _, err := w.Write(size[:]); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	for i, t := range tensors {
		c := &counter{w: w}
		if err := t.Fill(c); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		if c.n != sizes[i] {
			return fmt.Errorf("%s: wrote %d bytes, its shape %v needs %d", t.Name, c.n, t.Shape, sizes[i])
		}
	}
	return nil
}

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
