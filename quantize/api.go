// Package quantize writes a dynamically quantized int8 copy of a model
// folder exported by Hugging Face optimum, for the CPU. Every MatMul whose
// second input is a float32 [K, N] initializer becomes ONNX Runtime's
// com.microsoft DynamicQuantizeMatMul: the weights as int8 with one
// symmetric scale per output column, and the bias of the Add that follows
// folded into the node (unfolded, the Add costs 13-16% on this kind of
// model). By default the weights use [-64, 64] (SchemeS7, weights.go), so
// that no x86 CPU's u8 x s8 kernel saturates on them. Each attention core it recognizes becomes one MultiHeadAttention
// without a padding mask (attention.go). Activations are quantized at run time with one scale per tensor,
// so a window's logits depend on what else is in its batch, padding
// included: such a model must run one unpadded window per batch to give
// the same answers whatever the timing (see worker.Model and
// scheduler.Config.SingleWindowBatches).
//
// The rewrite works on the protobuf wire format (package onnxpb): every
// field it does not change is written back byte for byte.
package quantize

import (
	"qa-shard/internal/errkind"
)

// ErrUnsupported marks a model this package refuses; the error's text
// says why and what to do instead.
var ErrUnsupported = errkind.NewUser("cannot quantize")

// MetadataKey names the metadata_props entry of a quantized model; its
// value describes the scheme.
const MetadataKey = "qa-shard.quantization"

// Report says what a quantization did.
type Report struct {
	MatMuls int // MatMul nodes rewritten as DynamicQuantizeMatMul
	Folded  int // of those, how many took the following Add's bias
	Float   int // MatMul nodes left in float32 (no weight initializer)
	// Attention counts the attention cores fused into MultiHeadAttention
	// (their two activation x activation MatMuls are not in Float).
	Attention int
	Weights   int64 // weight values now int8

	InBytes, OutBytes int64    // size of model.onnx before and after
	Copied            []string // other files of the folder, copied as they were
	Ignored           []string // entries not copied (subfolders)
	// Removed are the temporary folders of a quantize into the same
	// folder that was killed part-way, removed before this one.
	Removed []string
}

// Options are the choices of a quantization.
type Options struct {
	// KeepAttention leaves the attention cores as exported, padding mask
	// included, instead of fusing them into MultiHeadAttention without a
	// mask (6-8% slower on the 4-layer, 256-wide model; for running
	// the int8 model elsewhere on padded batches).
	KeepAttention bool
	// Scheme is how weights are stored; "" is SchemeS7, right on every
	// x86 CPU. SchemeS8 is right only on CPUs with VNNI or AMX (elsewhere
	// qa-shard runs it in ONNX Runtime's slower exact mode).
	Scheme Scheme
}
