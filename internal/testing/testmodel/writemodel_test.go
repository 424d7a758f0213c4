package testmodel

import (
	"bytes"
	"math"
	"testing"
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

func tensorElems(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}
