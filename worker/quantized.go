package worker

import (
	"errors"
	"fmt"
	"strings"

	"qa-shard/onnxpb"
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
}

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
	m.Graph.Walk(func(n *onnxpb.Node) {
		if strings.HasPrefix(n.OpType, "DynamicQuantize") {
			gf.quantized = true
		}
		if n.OpType == "Gather" && n.DefaultDomain() && len(n.Inputs) == 2 && ids[n.Inputs[1]] && table == "" {
			table = n.Inputs[0]
		}
	})
	for _, t := range m.Graph.Initializers {
		if t.Name == table && len(t.Dims) == 2 {
			gf.embeddingRows = t.Dims[0]
		}
	}
	return gf, nil
}
