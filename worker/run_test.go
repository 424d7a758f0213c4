package worker

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"qa-shard/qa"
)

// testBatch is three windows of different lengths right-padded to 16:
// [CLS] question [SEP] context [SEP] with bert-base-uncased ids.
func testBatch(typeIDs bool) qa.Batch {
	rows := [][]int64{
		{101, 2040, 2631, 1996, 2194, 102, 9932, 2631, 1996, 2194, 1999, 3000, 102},
		{101, 2073, 2003, 2009, 102, 1999, 4068, 102},
		{101, 2040, 102, 2009, 2001, 2631, 2011, 15263, 1999, 3000, 1998, 2101, 2333, 2000, 4068, 102},
	}
	const l = 16
	b := qa.Batch{Rows: len(rows), Len: l, InputIDs: make([]int64, len(rows)*l), AttentionMask: make([]int64, len(rows)*l)}
	if typeIDs {
		b.TypeIDs = make([]int64, len(rows)*l)
	}
	for i, r := range rows {
		second := false
		for j, id := range r {
			b.InputIDs[i*l+j], b.AttentionMask[i*l+j] = id, 1
			if typeIDs && second {
				b.TypeIDs[i*l+j] = 1
			}
			second = second || id == 102
		}
	}
	return b
}

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

func TestReplicaRun(t *testing.T) {
	ctx := context.Background()
	b := testBatch(true)
	want, err := newReplica(t, "tiny").Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	n := b.Rows * b.Len
	if len(want.Start) != n || len(want.End) != n {
		t.Fatalf("%d/%d logits for a %dx%d batch", len(want.Start), len(want.End), b.Rows, b.Len)
	}
	var spread float64
	for i := range n {
		if math.IsNaN(float64(want.Start[i])) || math.IsInf(float64(want.Start[i]), 0) || math.IsNaN(float64(want.End[i])) {
			t.Fatalf("position %d: non-finite logits %v %v", i, want.Start[i], want.End[i])
		}
		spread = max(spread, math.Abs(float64(want.Start[i]-want.Start[0])))
	}
	if spread == 0 {
		t.Fatal("all start logits are equal: the output is not the model's")
	}

	t.Run("float16 logits", func(t *testing.T) {
		got, err := newReplica(t, "tiny-fp16").Run(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Start) != n || len(got.End) != n {
			t.Fatalf("%d/%d logits", len(got.Start), len(got.End))
		}
		if d := max(maxDiff(got.Start, want.Start), maxDiff(got.End, want.End)); d > 1e-2 {
			t.Errorf("float16 logits differ from float32 by up to %g", d)
		}
	})
	t.Run("no token type ids", func(t *testing.T) {
		zeros := testBatch(false)
		zeros.TypeIDs = make([]int64, n)
		full, err := newReplica(t, "tiny").Run(ctx, zeros)
		if err != nil {
			t.Fatal(err)
		}
		got, err := newReplica(t, "tiny-notype").Run(ctx, testBatch(false))
		if err != nil {
			t.Fatal(err)
		}
		// The variant behaves as the full model fed all-zero type ids.
		if d := max(maxDiff(got.Start, full.Start), maxDiff(got.End, full.End)); d > 1e-5 {
			t.Errorf("logits differ from the full model with zero type ids by up to %g", d)
		}
	})
}

func TestReplicaRunErrors(t *testing.T) {
	r := newReplica(t, "tiny")
	good := testBatch(true)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		b    func() qa.Batch
		want string
	}{
		{"short input ids", context.Background(), func() qa.Batch { b := good; b.InputIDs = b.InputIDs[1:]; return b }, "malformed batch"},
		{"short attention mask", context.Background(), func() qa.Batch { b := good; b.AttentionMask = nil; return b }, "malformed batch"},
		{"rows do not match", context.Background(), func() qa.Batch { b := good; b.Rows = 4; return b }, "malformed batch"},
		{"empty", context.Background(), func() qa.Batch { return qa.Batch{} }, "malformed batch"},
		{"missing type ids", context.Background(), func() qa.Batch { b := good; b.TypeIDs = b.TypeIDs[:3]; return b }, "token type ids"},
		{"canceled context", canceled, func() qa.Batch { return good }, context.Canceled.Error()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := r.Run(c.ctx, c.b())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run returned %d logits and error %v, want an error with %q", len(out.Start), err, c.want)
			}
			if c.ctx == canceled && !errors.Is(err, context.Canceled) {
				t.Errorf("error %v is not context.Canceled", err)
			}
		})
	}
	// The replica still works after refusing bad batches.
	if _, err := r.Run(context.Background(), good); err != nil {
		t.Fatalf("good batch after errors: %v", err)
	}
}

func TestReplicaClose(t *testing.T) {
	r := newReplica(t, "tiny")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), testBatch(true)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Run after Close: %v, want a closed-replica error", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestNewReplicaProvider: with the CPU-only library, asking for a GPU
// provider must fail with what is missing and how to fix it, never fall
// back to a silent CPU session.
func TestNewReplicaProvider(t *testing.T) {
	for _, tc := range []struct {
		provider string
		want     []string
	}{
		{ProviderCUDA, []string{"CUDA execution provider could not be enabled", "libonnxruntime_providers_cuda.so", "GPU build of ONNX Runtime 1.24", "--ort-lib"}},
		{ProviderTensorRT, []string{"TensorRT execution provider could not be enabled", "CUDA 13", "cuDNN 9"}},
		{"rocm", []string{`unknown provider "rocm"`}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			r, err := NewReplica(openModel(t, "tiny"), ReplicaOptions{Name: "gpu0", Provider: tc.provider, GPU: GPUOptions{MaxSeqLen: 384, MaxBatchTokens: 8192}})
			if err == nil {
				r.Close()
				t.Fatal("a GPU provider was accepted by the CPU-only library")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error is not ErrConfig: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestTRTProfiles(t *testing.T) {
	p := trtProfiles([]string{"input_ids", "attention_mask"}, 384, 8192, 128)
	want := map[string]string{
		"trt_profile_min_shapes": "input_ids:1x8,attention_mask:1x8",
		"trt_profile_opt_shapes": "input_ids:21x384,attention_mask:21x384",
		"trt_profile_max_shapes": "input_ids:128x384,attention_mask:128x384",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
}

// TestRebuild: a rebuilt replica runs again and gives the same logits.
func TestRebuild(t *testing.T) {
	r := newReplica(t, "tiny")
	before, err := r.Run(context.Background(), testBatch(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rebuild(); err != nil {
		t.Fatal(err)
	}
	after, err := r.Run(context.Background(), testBatch(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(before.Start, after.Start); d != 0 {
		t.Errorf("logits changed by %g after Rebuild", d)
	}
}
