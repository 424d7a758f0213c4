package checkpoint

import (
	"fmt"

	"github.com/nlpodyssey/safetensors"
)

// readSafetensors reads one safetensors file with nlpodyssey/safetensors
// (a port of the reference reader: header size bounds, offsets that tile
// the data exactly, sizes that match shapes), on the mapped bytes, so the
// tensors are views of the file.
func (c *Checkpoint) readSafetensors(m *mapping) error {
	st, err := safetensors.Deserialize(m.data)
	if err != nil {
		return fmt.Errorf("%w: %s is not a valid safetensors file: %w", ErrCheckpoint, m.path, err)
	}
	for _, nt := range st.Tensors() {
		v := nt.TensorView
		t := &Tensor{Name: nt.Name, File: m.path, data: v.Data(), TypeName: v.DType().String()}
		switch v.DType() {
		case safetensors.F32:
			t.DType = F32
		case safetensors.F16:
			t.DType = F16
		case safetensors.BF16:
			t.DType = BF16
		default:
			t.DType = Other
		}
		for _, d := range v.Shape() {
			t.Shape = append(t.Shape, int64(d))
		}
		if err := c.add(t); err != nil {
			return err
		}
	}
	return nil
}
