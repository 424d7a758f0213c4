package worker

import (
	"fmt"
	"math"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/qa"
)

// run feeds one batch through the session. Output tensors are allocated
// here rather than by ONNX Runtime: the Go binding's copy of an
// auto-allocated float16 output is sized in elements, not bytes.
func (r *Replica) run(b qa.Batch) (qa.Logits, error) {
	n := b.Rows * b.Len
	if n == 0 || len(b.InputIDs) != n || len(b.AttentionMask) != n {
		return qa.Logits{}, fmt.Errorf("replica %s: malformed batch %dx%d", r.name, b.Rows, b.Len)
	}
	shape := ort.NewShape(int64(b.Rows), int64(b.Len))
	var values []ort.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	add := func(name string, data []int64) error {
		v, err := r.intTensor(name, shape, data)
		if err != nil {
			return fmt.Errorf("replica %s: input %s: %w", r.name, name, err)
		}
		values = append(values, v)
		return nil
	}
	if err := add(r.model.InputIDs, b.InputIDs); err != nil {
		return qa.Logits{}, err
	}
	if err := add(r.model.AttentionMask, b.AttentionMask); err != nil {
		return qa.Logits{}, err
	}
	if r.model.TokenTypeIDs != "" {
		if len(b.TypeIDs) != n {
			return qa.Logits{}, fmt.Errorf("replica %s: batch lacks token type ids", r.name)
		}
		if err := add(r.model.TokenTypeIDs, b.TypeIDs); err != nil {
			return qa.Logits{}, err
		}
	}
	inputs := values[:len(values):len(values)]
	outs := make([]ort.Value, 2)
	for i := range outs {
		v, err := r.outputTensor(shape, n)
		if err != nil {
			return qa.Logits{}, fmt.Errorf("replica %s: output tensor: %w", r.name, err)
		}
		outs[i] = v
		values = append(values, v)
	}
	if err := r.session.RunWithOptions(inputs, outs, r.runOpts); err != nil {
		return qa.Logits{}, Classify(fmt.Errorf("replica %s: batch %dx%d: %w", r.name, b.Rows, b.Len, err))
	}
	start, err := floats(outs[0], n)
	if err != nil {
		return qa.Logits{}, fmt.Errorf("replica %s: %w", r.name, err)
	}
	end, err := floats(outs[1], n)
	if err != nil {
		return qa.Logits{}, fmt.Errorf("replica %s: %w", r.name, err)
	}
	return qa.Logits{Start: start, End: end}, nil
}

func (r *Replica) intTensor(name string, shape ort.Shape, data []int64) (ort.Value, error) {
	if r.model.inputTypes[name] == ort.TensorElementDataTypeInt32 {
		d := make([]int32, len(data))
		for i, x := range data {
			d[i] = int32(x)
		}
		return ort.NewTensor(shape, d)
	}
	return ort.NewTensor(shape, data)
}

func (r *Replica) outputTensor(shape ort.Shape, n int) (ort.Value, error) {
	if r.model.LogitsType == ort.TensorElementDataTypeFloat16 {
		return ort.NewCustomDataTensor(shape, make([]byte, 2*n), ort.TensorElementDataTypeFloat16)
	}
	return ort.NewEmptyTensor[float32](shape)
}

func floats(v ort.Value, n int) ([]float32, error) {
	switch t := v.(type) {
	case *ort.Tensor[float32]:
		return append([]float32(nil), t.GetData()...), nil
	case *ort.CustomDataTensor:
		raw := t.GetData()
		out := make([]float32, n)
		for i := range out {
			out[i] = halfToFloat(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected output value %T", v)
}

// halfToFloat widens an IEEE 754 binary16 value exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = frac * 2^-24
		f := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
