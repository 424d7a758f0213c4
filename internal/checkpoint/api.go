// Package checkpoint reads the weights of a model folder as
// transformers' save_pretrained writes it: model.safetensors, sharded
// safetensors with model.safetensors.index.json, or pytorch_model.bin (a
// zip of a pickle and raw storages, read with an unpickler that accepts
// only what torch's weights_only loader accepts), sharded too. Tensors are
// F32, F16 or BF16; their bytes stay in the files, mapped into memory, and
// are streamed out as float32 (WriteFloat32), so reading a checkpoint
// never holds a second copy of its weights. Bad files are refused naming
// the file and what is wrong; nothing is written.
package checkpoint

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"qa-shard/internal/errkind"
)

// ErrCheckpoint marks weights that cannot be used: a damaged or foreign
// file, a tensor of another type, a pickle that asks for more than
// tensors.
var ErrCheckpoint = errkind.NewUser("the checkpoint's weights cannot be read")

// DType is a tensor's element type as the files name it.
type DType uint8

// The element types of weights; I64, I32 and others appear in files only
// as buffers (position_ids), which a model does not take as weights.
const (
	F32 DType = iota + 1
	F16
	BF16
	Other
)

func (d DType) String() string {
	switch d {
	case F32:
		return "F32"
	case F16:
		return "F16"
	case BF16:
		return "BF16"
	}
	return "another type"
}

// Size is the bytes of one element (0 for Other).
func (d DType) Size() int {
	switch d {
	case F32:
		return 4
	case F16, BF16:
		return 2
	}
	return 0
}

// Tensor is one named tensor of a checkpoint: its type, shape and where
// its elements are (a view of a mapped file).
type Tensor struct {
	Name  string
	DType DType
	// TypeName is the file's own name of the type (I64, torch.LongStorage):
	// what a refusal names when DType is Other.
	TypeName string
	Shape    []int64
	File     string // the file that holds it, for messages
	data     []byte // the elements, row-major (contiguous)
}

// Elements is the number of elements.
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Checkpoint is a model folder's weights, mapped.
type Checkpoint struct {
	Dir string
	// Format says what was read: "safetensors", "sharded safetensors",
	// "pytorch_model.bin", "sharded pytorch_model.bin".
	Format string
	// Files are the weight files read, in order.
	Files   []string
	tensors map[string]*Tensor
	maps    []*mapping
}

// Tensor returns the tensor called name.
func (c *Checkpoint) Tensor(name string) (*Tensor, bool) {
	t, ok := c.tensors[name]
	return t, ok
}

// Names lists every tensor, sorted.
func (c *Checkpoint) Names() []string {
	return slices.Sorted(maps.Keys(c.tensors))
}

// Bytes is the size of the weight files: what a build reads.
func (c *Checkpoint) Bytes() int64 {
	var n int64
	for _, m := range c.maps {
		n += int64(len(m.data))
	}
	return n
}

// Close unmaps the files; the tensors must not be used after it.
func (c *Checkpoint) Close() error {
	var first error
	for _, m := range c.maps {
		first = cmp.Or(first, m.close())
	}
	c.maps, c.tensors = nil, nil
	return first
}

func (c *Checkpoint) add(t *Tensor) error {
	if prev, ok := c.tensors[t.Name]; ok {
		return fmt.Errorf("%w: %s: tensor %s is also in %s", ErrCheckpoint, t.File, t.Name, prev.File)
	}
	c.tensors[t.Name] = t
	return nil
}
