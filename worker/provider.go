package worker

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// Providers a replica can run on.
const (
	ProviderCPU      = "cpu"
	ProviderCUDA     = "cuda"
	ProviderTensorRT = "tensorrt"
)

// GPUOptions configure the CUDA and TensorRT execution providers.
type GPUOptions struct {
	DeviceID int    // CUDA ordinal after CUDA_VISIBLE_DEVICES is applied
	MemLimit uint64 // bytes the CUDA arena may take; 0 for no limit
	FP16     bool   // TensorRT: build fp16 engines
	// TRTCacheDir is the base folder of the TensorRT engine cache; the
	// engines go into EngineCacheDir(TRTCacheDir, GPUModel, the model's
	// fingerprint). Empty disables the cache.
	TRTCacheDir string
	GPUModel    string // NVML's name of the GPU, e.g. "NVIDIA H200"
	// MaxSeqLen, MaxBatchTokens and MaxBatchRows bound TensorRT's
	// optimisation profile: batches are [rows, len] with len <= MaxSeqLen
	// (padded to 8), rows*len <= MaxBatchTokens and rows <= MaxBatchRows.
	// A profile is a box, so the row cap is what keeps it small.
	MaxSeqLen, MaxBatchTokens, MaxBatchRows int
}

// appendProvider enables the GPU provider on so. Any failure is fatal:
// ONNX Runtime would otherwise create the session anyway and silently run
// it on the CPU.
func appendProvider(so *ort.SessionOptions, m *Model, provider string, g GPUOptions, inputs []string) error {
	switch provider {
	case "", ProviderCPU:
		return nil
	case ProviderTensorRT:
		if err := appendTensorRT(so, m, g, inputs); err != nil {
			return providerError("TensorRT", err)
		}
		// CUDA on the same device runs what TensorRT does not support.
		if err := appendCUDA(so, g); err != nil {
			return providerError("CUDA", err)
		}
		return nil
	case ProviderCUDA:
		if err := appendCUDA(so, g); err != nil {
			return providerError("CUDA", err)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown provider %q: use cpu, cuda or tensorrt", ErrConfig, provider)
}

func appendCUDA(so *ort.SessionOptions, g GPUOptions) error {
	o, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	opts := map[string]string{
		"device_id": strconv.Itoa(g.DeviceID),
		// Grow the arena by what is asked, not by doubling: batches vary in
		// shape and doubling strands memory that OOM splitting needs.
		"arena_extend_strategy": "kSameAsRequested",
		// BERT has no convolutions; exhaustive cuDNN search only costs time.
		"cudnn_conv_algo_search":    "HEURISTIC",
		"do_copy_in_default_stream": "1",
	}
	if g.MemLimit > 0 {
		opts["gpu_mem_limit"] = strconv.FormatUint(g.MemLimit, 10)
	}
	if err := o.Update(opts); err != nil {
		return err
	}
	return so.AppendExecutionProviderCUDA(o)
}

func appendTensorRT(so *ort.SessionOptions, m *Model, g GPUOptions, inputs []string) error {
	cache, err := m.engineCache(g)
	if err != nil {
		return err
	}
	if cache != "" {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return fmt.Errorf("engine cache %s: %w", cache, err)
		}
	}
	o, err := ort.NewTensorRTProviderOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	if err := o.Update(trtOptions(g, cache, inputs)); err != nil {
		return err
	}
	return so.AppendExecutionProviderTensorRT(o)
}

// trtOptions are the TensorRT provider's options. The workspace is capped
// only under a memory limit (at half of it); without one, ONNX Runtime's
// default lets TensorRT use what the device has.
func trtOptions(g GPUOptions, cacheDir string, inputs []string) map[string]string {
	opts := map[string]string{
		"device_id":       strconv.Itoa(g.DeviceID),
		"trt_fp16_enable": strconv.FormatBool(g.FP16),
	}
	if g.MemLimit > 0 {
		opts["trt_max_workspace_size"] = strconv.FormatUint(g.MemLimit/2, 10)
	}
	if cacheDir != "" {
		opts["trt_engine_cache_enable"] = "true"
		opts["trt_engine_cache_path"] = cacheDir
	}
	for k, v := range trtProfiles(inputs, g.MaxSeqLen, g.MaxBatchTokens, g.MaxBatchRows) {
		opts[k] = v
	}
	return opts
}

// trtProfiles gives TensorRT one dynamic-shape profile covering every
// batch the scheduler can cut: 1..maxRows by 8..len, optimised for full
// windows.
func trtProfiles(inputs []string, maxSeqLen, maxBatchTokens, maxRows int) map[string]string {
	if maxSeqLen <= 0 || maxBatchTokens <= 0 || maxRows <= 0 {
		return nil
	}
	l := (maxSeqLen + 7) &^ 7
	rows := maxRows
	optRows := max(1, maxBatchTokens/l)
	shape := func(b, s int) string {
		var parts []string
		for _, in := range inputs {
			parts = append(parts, fmt.Sprintf("%s:%dx%d", in, b, s))
		}
		return strings.Join(parts, ",")
	}
	return map[string]string{
		"trt_profile_min_shapes": shape(1, 8),
		"trt_profile_opt_shapes": shape(optRows, l),
		"trt_profile_max_shapes": shape(rows, l),
	}
}
