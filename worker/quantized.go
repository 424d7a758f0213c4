package worker

import (
	"errors"
	"fmt"
	"strings"

	"qa-shard/internal/onnxpb"
)

// graphFacts is what qa-shard reads from the graph's structure itself.
type graphFacts struct {
	// quantized: operators that quantize activations at run time with one
	// scale for the whole tensor (DynamicQuantizeMatMul,
	// DynamicQuantizeLinear, DynamicQuantizeLSTM: what `qa-shard quantize`
	// and ONNX Runtime's quantize_dynamic produce). In such a model a
	// window's logits depend on the other rows of its batch and on padding.
	quantized bool
	// embeddingRows is the row count of the word embedding table, the
	// initializer a Gather node looks input_ids up in (through one Cast at
	// most); 0 when the graph has no such node.
	embeddingRows int64
	// fullRangeS8 names an int8 weight of a quantized MatMul that uses
	// more than [-64, 64] (or whose values cannot be read): u8 x s8
	// kernels without VNNI would saturate on it (see isa.Set.SaturatesU8S8).
	// "" when every such weight is uint8 or within [-64, 64].
	fullRangeS8 string
	// positionRows is the row count of the absolute position table (a
	// gathered initializer named ...position_embeddings.weight, as
	// transformers names it and exports keep it); 0 when there is none
	// (DeBERTa's relative positions) or it cannot be told.
	positionRows int64
}

// int8Weights are the operators of quantized models whose input 1 is the
// quantized weight matrix.
var int8Weights = map[string]bool{"DynamicQuantizeMatMul": true, "MatMulInteger": true, "MatMulIntegerToFloat": true}

func readGraphFacts(path, inputIDs string) (graphFacts, error) {
	var gf graphFacts
	f, err := onnxpb.Open(path)
	if err != nil {
		return gf, fmt.Errorf("%w: reading the operators of %s: %w", ErrConfig, path, err)
	}
	defer f.Close()
	m, err := onnxpb.Parse(f.Bytes())
	if err == nil && m.Graph == nil {
		err = errors.New("the model has no graph")
	}
	if err != nil {
		return gf, fmt.Errorf("%w: reading the operators of %s: %w", ErrConfig, path, err)
	}
	ids := map[string]bool{inputIDs: true}
	for _, n := range m.Graph.Nodes {
		if n.OpType == "Cast" && n.DefaultDomain() && len(n.Inputs) == 1 && n.Inputs[0] == inputIDs {
			ids[n.Outputs[0]] = true
		}
	}
	var table string
	weights, gathered := map[string]bool{}, map[string]bool{}
	m.Graph.Walk(func(n *onnxpb.Node) {
		if int8Weights[n.OpType] && len(n.Inputs) > 1 {
			weights[n.Inputs[1]] = true
		}
		if strings.HasPrefix(n.OpType, "DynamicQuantize") {
			gf.quantized = true
		}
		if n.OpType == "Gather" && n.DefaultDomain() && len(n.Inputs) == 2 && ids[n.Inputs[1]] && table == "" {
			table = n.Inputs[0]
		}
		if n.OpType == "Gather" && len(n.Inputs) == 2 {
			gathered[n.Inputs[0]] = true
		}
	})
	for _, t := range m.Graph.Initializers {
		if t.Name == table && len(t.Dims) == 2 {
			gf.embeddingRows = t.Dims[0]
		}
		if gathered[t.Name] && len(t.Dims) == 2 && strings.HasSuffix(t.Name, "position_embeddings.weight") {
			gf.positionRows = t.Dims[0]
		}
		if weights[t.Name] && t.DataType == onnxpb.Int8 && gf.fullRangeS8 == "" && !withinS7(t) {
			gf.fullRangeS8 = t.Name
		}
	}
	return gf, nil
}

// withinS7 says whether an int8 weight stays within [-64, 64], where a
// pair of u8 x s8 products fits in 16 bits (2 x 255 x 64 = 32,640).
func withinS7(t *onnxpb.Tensor) bool {
	q, err := t.Int8s()
	if err != nil {
		return false
	}
	for _, v := range q {
		if v > 64 || v < -64 {
			return false
		}
	}
	return true
}
