package job

import (
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/fleet"
	"qa-shard/internal/cli"
	"qa-shard/qamodel"
	"qa-shard/worker"
)

// ModelGraph is how the model's graph is built for the devices the run
// uses (target: fleet.Target), from --graph and --precision, or why that
// cannot run there. auto is the fused graph on CUDA GPUs (what ONNX
// Runtime runs fastest there) and the standard one on the CPU, where
// ONNX Runtime 1.30's fused kernels measured 1-5% slower than its own
// fusions of the standard graph (docs/benchmarks.md), and with TensorRT,
// which parses ONNX's standard operators.
func ModelGraph(o *Options, target string) (qamodel.Graph, error) {
	fp16 := o.Precision == "fp16"
	export := isExport(o.Model)
	switch {
	case fp16 && (target == worker.ProviderCPU || target == "sim"):
		return qamodel.Graph{}, fmt.Errorf("%w: --precision fp16 is for CUDA GPUs, and --devices %s runs on the CPU, which computes in fp32 (fp16 is slower there and no more exact): drop --precision, or on the CPU use int8 (qa-shard quantize)",
			cli.ErrUsage, o.Devices)
	case fp16 && export && target == worker.ProviderCUDA:
		return qamodel.Graph{}, fmt.Errorf("%w: --precision fp16 builds a float16 graph from a checkpoint folder, and %s is an ONNX export, which runs as it is: give the checkpoint folder (or its Hub id), write a float16 export with qa-shard export --precision fp16, or use --provider tensorrt (float16 engines from this graph)",
			cli.ErrUsage, o.Model)
	case o.Graph == "fused" && target == worker.ProviderTensorRT:
		return qamodel.Graph{}, fmt.Errorf("%w: --graph fused with --provider tensorrt: TensorRT parses ONNX's standard operators, not ONNX Runtime's fused ones; use --graph standard (or auto)", cli.ErrUsage)
	case fp16 && o.Graph == "standard" && target == worker.ProviderCUDA:
		return qamodel.Graph{}, fmt.Errorf("%w: --precision fp16 with --graph standard: a float16 graph is built with the fused operators, whose LayerNorm and Softmax accumulate in float32 (written out of ONNX's own operators, LayerNorm's squares overflow float16); use --graph fused (or auto)", cli.ErrUsage)
	}
	g := qamodel.Graph{Fused: o.Graph == "fused" || o.Graph == "auto" && target == worker.ProviderCUDA}
	// TensorRT's float16 is its engines' (trt_fp16_enable), built from a
	// float32 graph.
	g.Float16 = fp16 && target == worker.ProviderCUDA
	return g, nil
}

// isExport says whether the model folder holds an ONNX graph already (a
// Hub id or a missing folder is not).
func isExport(model string) bool {
	_, err := os.Stat(filepath.Join(model, "model.onnx"))
	return err == nil
}

// deviceTarget is the provider of the run's devices (fleet.Target).
func deviceTarget(o *Options) string {
	return fleet.Target(o.Devices, o.Provider)
}
