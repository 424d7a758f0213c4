package testmodel

import (
	"fmt"
	"math"
	"slices"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// TestSignature checks what a runtime discovers about an optimum export:
// the names, element types and fully dynamic [batch, sequence] shapes.
func TestSignature(t *testing.T) {
	requireORT(t)
	tests := []struct {
		name    string
		opts    []Option
		inputs  []string
		outType ort.TensorElementDataType
	}{
		{"default", nil, []string{"input_ids", "attention_mask", "token_type_ids"}, ort.TensorElementDataTypeFloat},
		{"no_token_type_ids", []Option{WithoutTokenTypeIDs()}, []string{"input_ids", "attention_mask"}, ort.TensorElementDataTypeFloat},
		{"fp16_logits", []Option{Float16Logits()}, []string{"input_ids", "attention_mask", "token_type_ids"}, ort.TensorElementDataTypeFloat16},
		{"both", []Option{WithoutTokenTypeIDs(), Float16Logits()}, []string{"input_ids", "attention_mask"}, ort.TensorElementDataTypeFloat16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ins, outs, err := ort.GetInputOutputInfo(tinyModel(t, tc.opts...))
			if err != nil {
				t.Fatal(err)
			}
			check := func(kind string, got []ort.InputOutputInfo, names []string, typ ort.TensorElementDataType) {
				if len(got) != len(names) {
					t.Fatalf("%d %ss, want %d (%v)", len(got), kind, len(names), got)
				}
				for i, info := range got {
					if info.Name != names[i] || info.DataType != typ ||
						info.OrtValueType != ort.ONNXTypeTensor || !slices.Equal(info.Dimensions, ort.NewShape(-1, -1)) {
						t.Errorf("%s %d = %s, want %s %v [-1 -1]", kind, i, info.String(), names[i], typ)
					}
				}
			}
			check("input", ins, tc.inputs, ort.TensorElementDataTypeInt64)
			check("output", outs, []string{"start_logits", "end_logits"}, tc.outType)
		})
	}
}

func TestLogitsFiniteAndVaried(t *testing.T) {
	path := tinyModel(t)
	a, b := row(24, 1), row(24, 2)
	start, end := runQA(t, path, pad(24, a, b), true, false)
	for r := range start {
		for i := range start[r] {
			for _, v := range []float32{start[r][i], end[r][i]} {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("row %d position %d: logit %v", r, i, v)
				}
			}
		}
		// A wide head should spread logits over units, not hundredths.
		if sd := stddev(start[r]); sd < 0.3 {
			t.Errorf("row %d: start logits std %.4f, want >= 0.3: %v", r, sd, start[r])
		}
		if sd := stddev(end[r]); sd < 0.3 {
			t.Errorf("row %d: end logits std %.4f, want >= 0.3: %v", r, sd, end[r])
		}
		if maxDiff(start[r], end[r]) < 0.1 {
			t.Errorf("row %d: start and end logits nearly equal", r)
		}
	}
	if maxDiff(start[0], start[1]) < 0.1 {
		t.Errorf("different inputs gave nearly equal logits")
	}
}

// TestPaddingInvariance: right padding with attention_mask 0 must not move
// the logits of the real tokens, the property batching by length relies on.
func TestPaddingInvariance(t *testing.T) {
	path := tinyModel(t)
	r := row(20, 3)
	alone, aloneEnd := runQA(t, path, pad(20, r), true, false)
	padded, paddedEnd := runQA(t, path, pad(32, r), true, false)
	assertClose(t, "start", alone[0], padded[0][:20], 1e-5)
	assertClose(t, "end", aloneEnd[0], paddedEnd[0][:20], 1e-5)

	// The same padded ids with mask 1 must differ, or the check above would
	// pass for a model that ignores context altogether.
	unmasked := pad(32, r)
	for i := range unmasked.mask[0] {
		unmasked.mask[0][i] = 1
	}
	seen, _ := runQA(t, path, unmasked, true, false)
	if maxDiff(alone[0], seen[0][:20]) < 1e-3 {
		t.Errorf("attending to [PAD] tokens changed nothing: the mask or context mixing is missing")
	}
}

// TestBatchInvariance: a row's logits do not depend on its batch mates.
func TestBatchInvariance(t *testing.T) {
	path := tinyModel(t)
	rows := []seq{row(7, 4), row(20, 5), row(13, 6)}
	start, end := runQA(t, path, pad(20, rows...), true, false)
	for i, r := range rows {
		n := len(r.ids)
		s, e := runQA(t, path, pad(n, r), true, false)
		assertClose(t, fmt.Sprintf("row %d start", i), s[0], start[i][:n], 1e-5)
		assertClose(t, fmt.Sprintf("row %d end", i), e[0], end[i][:n], 1e-5)
	}
}

// TestWithoutTokenTypeIDs: the variant equals the full model fed segment
// zeros, and differs from it fed real segments (so token types matter).
func TestWithoutTokenTypeIDs(t *testing.T) {
	full, reduced := tinyModel(t), tinyModel(t, WithoutTokenTypeIDs())
	r := row(16, 7)
	b := pad(16, r)
	got, _ := runQA(t, reduced, b, false, false)
	withSegments, _ := runQA(t, full, b, true, false)
	for i := range b.types[0] {
		b.types[0][i] = 0
	}
	zeros, _ := runQA(t, full, b, true, false)
	assertClose(t, "start", zeros[0], got[0], 1e-5)
	if maxDiff(withSegments[0], zeros[0]) < 1e-3 {
		t.Errorf("token_type_ids have no effect on the full model")
	}
}

// TestFloat16Logits: the cast changes only the output precision.
func TestFloat16Logits(t *testing.T) {
	r := row(16, 8)
	b := pad(16, r)
	want, wantEnd := runQA(t, tinyModel(t), b, true, false)
	got, gotEnd := runQA(t, tinyModel(t, Float16Logits()), b, true, true)
	for i := range want[0] {
		for _, p := range [][2]float32{{want[0][i], got[0][i]}, {wantEnd[0][i], gotEnd[0][i]}} {
			// float16 keeps 11 significant bits: relative error <= 2^-11.
			if d := math.Abs(float64(p[0] - p[1])); d > math.Abs(float64(p[0]))/2048+1e-6 {
				t.Errorf("position %d: float16 %v vs float32 %v", i, p[1], p[0])
			}
		}
	}
}

func assertClose(t *testing.T, what string, want, got []float32, tol float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(float64(want[i] - got[i])); d > tol || math.IsNaN(d) {
			t.Errorf("%s: position %d: %v vs %v (diff %g > %g)", what, i, got[i], want[i], d, tol)
		}
	}
}

func maxDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

func stddev(v []float32) float64 {
	var sum, sq float64
	for _, x := range v {
		sum += float64(x)
	}
	mean := sum / float64(len(v))
	for _, x := range v {
		sq += (float64(x) - mean) * (float64(x) - mean)
	}
	return math.Sqrt(sq / float64(len(v)))
}
