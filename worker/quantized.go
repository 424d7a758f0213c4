package worker

import (
	"fmt"
	"strings"

	"qa-shard/onnxpb"
)

// dynamicQuantization finds operators that quantize activations at run
// time with one scale for the whole tensor (DynamicQuantizeMatMul,
// DynamicQuantizeLinear, DynamicQuantizeLSTM: what `qa-shard quantize` and
// ONNX Runtime's quantize_dynamic produce). In such a model a window's
// logits depend on the other rows of its batch and on padding.
func dynamicQuantization(path string) (bool, error) {
	ops, err := onnxpb.OpTypes(path)
	if err != nil {
		return false, fmt.Errorf("%w: reading the operators of %s: %w", ErrConfig, path, err)
	}
	for op := range ops {
		if strings.HasPrefix(op, "DynamicQuantize") {
			return true, nil
		}
	}
	return false, nil
}
