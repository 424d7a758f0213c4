package quantize

import (
	"fmt"
	"slices"
	"strings"

	"qa-shard/internal/onnxpb"
)

// quantizedOps are operators that only appear in models quantized already
// (by this package, ONNX Runtime's Python tools, or a static scheme).
var quantizedOps = []string{
	"DynamicQuantizeMatMul", "DynamicQuantizeLinear", "DynamicQuantizeLSTM",
	"MatMulInteger", "MatMulIntegerToFloat", "QLinearMatMul", "QGemm",
	"QuantizeLinear", "DequantizeLinear", "QAttention", "QEmbedLayerNormalization",
	"ConvInteger", "QLinearConv", "MatMulNBits", "MatMulBnb4",
}

// minOpset is the oldest standard opset ONNX Runtime still loads.
const minOpset = 7

// msDomain is ONNX Runtime's contrib operator domain.
const msDomain = "com.microsoft"

// check refuses what rewrite cannot handle, with the reason.
func check(m *onnxpb.Model) error {
	if m.Graph == nil {
		return fmt.Errorf("%w: model.onnx has no graph", ErrUnsupported)
	}
	if v, ok := m.Metadata[MetadataKey]; ok {
		return fmt.Errorf("%w: model.onnx is quantized already (%s); quantize the float32 export instead", ErrUnsupported, v)
	}
	found := map[string]int{}
	m.Graph.Walk(func(n *onnxpb.Node) {
		if slices.Contains(quantizedOps, n.OpType) {
			found[n.OpType]++
		}
	})
	if len(found) > 0 {
		return fmt.Errorf("%w: model.onnx is quantized already (it has %s nodes); quantize the float32 export instead", ErrUnsupported, names(found))
	}
	for _, t := range m.Graph.Initializers {
		if t.External {
			return fmt.Errorf("%w: model.onnx keeps its weights in external data files (initializer %q), as models saved over 2 GB do; this tool reads single-file models only: export the model without external data", ErrUnsupported, t.Name)
		}
	}
	v, ok := m.OpsetVersion("")
	switch {
	case !ok:
		return fmt.Errorf("%w: model.onnx imports no standard ONNX opset (IR version %d); re-export it with a current exporter", ErrUnsupported, m.IRVersion)
	case v < minOpset:
		return fmt.Errorf("%w: model.onnx uses ONNX opset %d; ONNX Runtime needs %d or newer: re-export it with a newer opset", ErrUnsupported, v, minOpset)
	}
	if v, ok := m.OpsetVersion(msDomain); ok && v != 1 {
		return fmt.Errorf("%w: model.onnx imports %s opset %d; DynamicQuantizeMatMul is defined in version 1", ErrUnsupported, msDomain, v)
	}
	return nil
}

// names lists counted names in a stable order, e.g. "2 QuantizeLinear".
func names(counts map[string]int) string {
	var out []string
	for k, n := range counts {
		out = append(out, fmt.Sprintf("%d %s", n, k))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// nothingToDo explains why no MatMul could be quantized.
func nothingToDo(matmuls int, why map[string]int) error {
	if matmuls == 0 {
		return fmt.Errorf("%w: model.onnx has no MatMul node, so there are no weights to quantize (a model exported with Gemm or fused operators is not supported)", ErrUnsupported)
	}
	return fmt.Errorf("%w: none of the %d MatMul nodes of model.onnx multiplies by a float32 [K, N] weight stored in the model (%s); export the float32 model with its weights as initializers", ErrUnsupported, matmuls, names(why))
}
