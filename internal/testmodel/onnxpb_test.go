package testmodel

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/onnxpb"
)

func TestFloat16Bits(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},                 // largest finite half
		{65520, 0x7c00},                 // rounds up to +Inf
		{float32(math.Inf(-1)), 0xfc00}, // -Inf
		{1 + 1.0/2048, 0x3c00},          // tie, mantissa even: down
		{1 + 3.0/2048, 0x3c02},          // tie, mantissa odd: up
		{0x1p-24, 0x0001},               // smallest subnormal
		{0x1p-25, 0x0000},               // tie to even zero
		{0x1.8p-24, 0x0002},             // tie to even 2
		{0x1p-14, 0x0400},               // smallest normal
		{0x1.ffep-15, 0x0400},           // tie at the top subnormal: up to normal
		{1e-9, 0x0000},                  // underflow
		{float32(math.NaN()), 0x7e00},   // quiet NaN
	}
	for _, tc := range tests {
		if got := float16Bits(tc.in); got != tc.want {
			t.Errorf("float16Bits(%g) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	// Every finite half must survive decode and encode unchanged.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue // NaN payloads are not preserved, by design
		}
		if got := float16Bits(float16Value(uint16(h))); got != uint16(h) {
			t.Fatalf("round trip %#04x -> %g -> %#04x", h, float16Value(uint16(h)), got)
		}
	}
}

// TestFloat16Initializer runs a hand-built graph y = x + c with a float16
// initializer and fixed dims, exercising the encoder paths BERT does not.
func TestFloat16Initializer(t *testing.T) {
	requireORT(t)
	c := []float32{1.5, -2.25, 65504}
	g := &graph{
		name:    "f16",
		nodes:   []node{{op: "Add", name: "add", in: []string{"x", "c"}, out: []string{"y"}}},
		inits:   []*tensor{{name: "c", dtype: onnxpb.Float16, dims: []int64{3}, raw: float16Bytes(c...)}},
		inputs:  []valueInfo{{name: "x", dtype: onnxpb.Float16, dims: []dim{{value: 3}}}},
		outputs: []valueInfo{{name: "y", dtype: onnxpb.Float16, dims: []dim{{value: 3}}}},
	}
	var buf bytes.Buffer
	n, err := writeModel(&buf, g, defaultOpset, Producer, ProducerVersion)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("writeModel reported %d bytes, wrote %d", n, buf.Len())
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(buf.Bytes(), []string{"x"}, []string{"y"}, nil)
	if err != nil {
		t.Fatalf("ORT rejected the model: %v", err)
	}
	defer s.Destroy()
	x, err := ort.NewCustomDataTensor(ort.NewShape(3), float16Bytes(1, 1, -65504), ort.TensorElementDataTypeFloat16)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	y, err := ort.NewCustomDataTensor(ort.NewShape(3), make([]byte, 6), ort.TensorElementDataTypeFloat16)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Destroy()
	if err := s.Run([]ort.Value{x}, []ort.Value{y}); err != nil {
		t.Fatal(err)
	}
	var got []float32
	for i := 0; i < 3; i++ {
		got = append(got, float16Value(binary.LittleEndian.Uint16(y.GetData()[2*i:])))
	}
	if want := []float32{2.5, -1.25, 0}; !slices.Equal(got, want) {
		t.Errorf("x + c = %v, want %v", got, want)
	}
}

// tinyParams counts BertForQuestionAnswering parameters for Tiny by hand,
// independently of the graph builder.
func tinyParams() int { return params(Tiny) }

// params counts a preset's BertForQuestionAnswering parameters by hand.
func params(p Preset) int {
	h, i := p.Hidden, p.Intermediate
	emb := (p.VocabSize+p.MaxPositions+p.TypeVocab)*h + 2*h
	layer := 4*(h*h+h) + 2*h + (h*i + i) + (i*h + h) + 2*h
	return emb + p.Layers*layer + 2*h + 2
}

func TestWriteModelDeterministicAndComplete(t *testing.T) {
	var a, b bytes.Buffer
	n, err := WriteModel(&a, Tiny)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(a.Len()) {
		t.Errorf("WriteModel reported %d bytes, wrote %d", n, a.Len())
	}
	if _, err := WriteModel(&b, Tiny); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two runs differ: generation is not deterministic")
	}
	// Weights dominate the file; graph structure and names add a little.
	weights := 4 * tinyParams()
	if a.Len() < weights || a.Len() > weights+64<<10 {
		t.Errorf("model is %d bytes, want %d bytes of weights plus < 64 KiB", a.Len(), weights)
	}
	other := Tiny
	other.Seed++
	var c bytes.Buffer
	if _, err := WriteModel(&c, other); err != nil {
		t.Fatal(err)
	}
	if c.Len() != a.Len() || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Errorf("another seed should give other weights of the same size (%d vs %d bytes)", c.Len(), a.Len())
	}
}

func TestWriteModelRejectsBadPreset(t *testing.T) {
	bad := Tiny
	bad.Heads = 3 // 32 is not a multiple of 3
	if _, err := WriteModel(&bytes.Buffer{}, bad); err == nil {
		t.Errorf("hidden 32 with 3 heads accepted")
	}
}
