package sim

import (
	"fmt"

	"qa-shard/qa"
	"qa-shard/worker"
)

// The errors below reproduce what worker.Replica returns when ONNX Runtime
// fails: the worker's "replica NAME: batch RxL: " prefix, the Go binding's
// "Error running network: " and ONNX Runtime's own status message, turned
// into a *worker.RunError by the same worker.Classify a real session's
// error goes through: the classifier is exercised on the real texts.

// bertHeads is bert-base's attention heads; the attention scores tensor
// (rows x heads x len x len float32) is the allocation that fails first.
const bertHeads = 12

func (r *Replica) oomErr(b qa.Batch) error {
	size := int64(b.Rows) * bertHeads * int64(b.Len) * int64(b.Len) * 4
	return worker.Classify(fmt.Errorf("replica %s: batch %dx%d: Error running network: "+
		"Non-zero status code returned while running MatMul node. Name:'/bert/encoder/layer.0/attention/self/MatMul' "+
		"Status Message: /onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 "+
		"void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) "+
		"Failed to allocate memory for requested buffer of size %d",
		r.opt.Name, b.Rows, b.Len, size))
}

// fatalErr is the sticky CUDA error: once a kernel faulted, every later
// call on the context fails with it until the session is rebuilt.
func (r *Replica) fatalErr(b qa.Batch) error {
	return worker.Classify(fmt.Errorf("replica %s: batch %dx%d: Error running network: "+
		"CUDA failure 700: an illegal memory access was encountered ; GPU=%d ; hostname=sim ; "+
		"file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=448 ; "+
		"expr=cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));",
		r.opt.Name, b.Rows, b.Len, r.opt.Index))
}

// tokenErr is what a model reports for an id outside its vocabulary: a
// failure that follows the input, whichever replica runs it.
func (r *Replica) tokenErr(b qa.Batch) error {
	return worker.Classify(fmt.Errorf("replica %s: batch %dx%d: Error running network: "+
		"Non-zero status code returned while running Gather node. Name:'/bert/embeddings/word_embeddings/Gather' "+
		"Status Message: indices element out of data bounds, idx=%d must be within the inclusive range [-30522,30521]",
		r.opt.Name, b.Rows, b.Len, r.opt.Faults.FailToken))
}
