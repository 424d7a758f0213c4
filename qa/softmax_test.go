package qa

import (
	"math"
	"testing"
)

func naiveSum32(a []float32) float32 {
	var s float32
	for _, v := range a {
		s += v
	}
	return s
}

func TestPairwiseSum(t *testing.T) {
	// 2^24 absorbs each added 1 when summed left to right; numpy's eight
	// accumulators add the ones among themselves first.
	big := make([]float32, 16)
	big[0] = 1 << 24
	for i := 1; i < len(big); i++ {
		big[i] = 1
	}
	harmonic := make([]float32, 300) // > 128: exercises numpy's split
	for i := range harmonic {
		harmonic[i] = float32(1 / float64(i+1))
	}
	mod := make([]float32, 384)
	for i := range mod {
		mod[i] = float32(float64(float64((i*7919)%1000)*0.001) + 0.001)
	}
	tests := []struct {
		name string
		in   []float32
		want uint32 // float32 bits
	}{
		{"2^24 then ones", big, math.Float32bits(1<<24 + 14)},
		// Bits of np.asarray(x, np.float32).sum() with numpy 1.24.
		{"harmonic 300", harmonic, 1086917527},
		{"mod 384", mod, 1128265679},
		{"short", []float32{1, 2, 3}, math.Float32bits(6)},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pairwiseSum32(tt.in)
			if math.Float32bits(got) != tt.want {
				t.Fatalf("got %v (bits %d), want %v (bits %d)",
					got, math.Float32bits(got), math.Float32frombits(tt.want), tt.want)
			}
		})
	}
	// The cases only prove the order if a plain loop gets them wrong.
	for _, in := range [][]float32{big, harmonic, mod} {
		if pairwiseSum32(in) == naiveSum32(in) {
			t.Errorf("naive sum of %d values equals the pairwise sum; the case proves nothing", len(in))
		}
	}
}

func TestSoftmax(t *testing.T) {
	tests := []struct {
		name string
		in   []float32
	}{
		{"small", []float32{1, 2, 3, 0.5}},
		{"masked entries", []float32{2, maskedLogit, 7.25, maskedLogit, -3}},
		{"all equal", []float32{maskedLogit, maskedLogit, maskedLogit, maskedLogit}},
		{"long", func() []float32 {
			x := make([]float32, 384)
			for i := range x {
				x[i] = float32(math.Sin(float64(i))) * 6
			}
			return x
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]float32, len(tt.in))
			softmax32(got, tt.in)
			// Independent float64 softmax.
			var sum float64
			for _, v := range tt.in {
				sum += math.Exp(float64(v))
			}
			if sum == 0 { // exp(-10000) underflows even in float64: uniform
				for i := range got {
					if want := 1 / float64(len(got)); math.Abs(float64(got[i])-want) > 1e-6 {
						t.Fatalf("p[%d] = %v, want %v", i, got[i], want)
					}
				}
				return
			}
			for i, v := range tt.in {
				want := math.Exp(float64(v)) / sum
				if math.Abs(float64(got[i])-want) > 1e-6 {
					t.Fatalf("p[%d] = %v, want %v", i, got[i], want)
				}
			}
		})
	}
}
