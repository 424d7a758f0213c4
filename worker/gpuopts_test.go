package worker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits of a GPU's sessions add up to the fraction, the default
// number of sessions applied first (0 means 2 sessions, not 1).
func TestSessionMemLimit(t *testing.T) {
	const total = uint64(141) << 30
	for _, fraction := range []float64{0.9, 0.5, 1} {
		for _, requested := range []int{0, 1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%g/%d", fraction, requested), func(t *testing.T) {
				sessions := sessionsPerGPU(requested)
				if requested == 0 && sessions != DefaultSessionsPerGPU {
					t.Fatalf("SessionsPerGPU(0) = %d, want %d", sessions, DefaultSessionsPerGPU)
				}
				per := SessionMemLimit(fraction, total, requested)
				sum := per * uint64(sessions)
				want := fraction * float64(total)
				if float64(sum) > want || float64(sum) < want-float64(sessions) {
					t.Errorf("%d sessions x %d bytes = %d, want the fraction's %.0f bytes", sessions, per, sum, want)
				}
			})
		}
	}
	if got := SessionMemLimit(0, total, 2); got != 0 {
		t.Errorf("no fraction: limit %d, want 0 (none)", got)
	}
	if got := SessionMemLimit(0.9, 0, 2); got != 0 {
		t.Errorf("unknown total: limit %d, want 0 (none)", got)
	}
}

// The engine folder follows the model's bytes, not its path, and the GPU
// model; two fine-tunes that are both "model.onnx" never share one.
func TestEngineCacheFollowsModelBytes(t *testing.T) {
	src := model(t, "tiny")
	a, b, c := copyModel(t, src), copyModel(t, src), copyModel(t, src)
	f, err := os.OpenFile(filepath.Join(c, "model.onnx"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{last[0] ^ 1}, st.Size()-1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g := GPUOptions{TRTCacheDir: "cache", GPUModel: "NVIDIA H200"}
	dir := func(d string, g GPUOptions) string {
		p, err := (&Model{Dir: d}).engineCache(g)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	da, db, dc := dir(a, g), dir(b, g), dir(c, g)
	if da != db {
		t.Errorf("same bytes in two folders: %s and %s, want one engine folder", da, db)
	}
	if da == dc {
		t.Errorf("one changed byte kept the engine folder %s", da)
	}
	if !strings.HasPrefix(da, filepath.Join("cache", "NVIDIA-H200", "model-")) {
		t.Errorf("engine folder %s is not under cache/NVIDIA-H200/", da)
	}
	if other := dir(a, GPUOptions{TRTCacheDir: "cache", GPUModel: "NVIDIA A100-SXM4-80GB"}); other == da {
		t.Errorf("two GPU models share %s", da)
	}
	if none := dir(a, GPUOptions{}); none != "" {
		t.Errorf("no cache folder given: %q, want none", none)
	}
}

func copyModel(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, name := range []string{"model.onnx", "tokenizer.json", "config.json"} {
		in, err := os.Open(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dst
}

// Without a memory limit TensorRT's workspace is left to ONNX Runtime's
// default (the device); under one, half the limit.
func TestTRTOptions(t *testing.T) {
	in := []string{"input_ids", "attention_mask"}
	o := trtOptions(GPUOptions{DeviceID: 1, MaxSeqLen: 384, MaxBatchTokens: 8192, MaxBatchRows: 128}, "", in)
	if _, ok := o["trt_max_workspace_size"]; ok {
		t.Errorf("workspace capped without a memory limit: %s", o["trt_max_workspace_size"])
	}
	if o["device_id"] != "1" || o["trt_profile_max_shapes"] == "" || o["trt_engine_cache_enable"] != "" {
		t.Errorf("options %v", o)
	}
	o = trtOptions(GPUOptions{MemLimit: 8 << 30, FP16: true}, "cache/x", in)
	if o["trt_max_workspace_size"] != fmt.Sprint(4<<30) || o["trt_fp16_enable"] != "true" ||
		o["trt_engine_cache_enable"] != "true" || o["trt_engine_cache_path"] != "cache/x" {
		t.Errorf("options %v", o)
	}
}

func TestProviderErrorHints(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want []string
	}{
		{"Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.13: cannot open shared object file: No such file or directory",
			[]string{"it needs libcublasLt.so.13", "LD_LIBRARY_PATH", "libcurand.so.10"}},
		{"Failed to load library libonnxruntime_providers_cuda.so with error: libonnxruntime_providers_cuda.so: cannot open shared object file: No such file or directory",
			[]string{"has no GPU providers beside it", "CUDA 13", "make install-gpu PREFIX=DIR", "qa-shard devices"}},
		{"CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version",
			[]string{"driver version is insufficient", "CUDA 13"}},
	} {
		err := providerError("CUDA", fmt.Errorf("%s", tc.msg))
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error lacks %q:\n%v", tc.msg, w, err)
			}
		}
		if strings.Contains(err.Error(), "CUDA 12") {
			t.Errorf("hint names CUDA 12: %v", err)
		}
	}
}
