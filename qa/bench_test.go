package qa

import (
	"math"
	"strings"
	"testing"
)

// benchWindow is a full 384-token window: a 10-token question and 371
// context tokens, with smooth pseudo-random logits.
func benchWindow(b *testing.B, s Settings) (Window, Tokens, []float32, []float32) {
	_, q := toks("what is the name of the tower in the city ?")
	_, ctx := toks(strings.TrimSpace(strings.Repeat("tok|en ", 400)))
	ws, err := Windows(q, ctx, testSpecial, s)
	if err != nil {
		b.Fatal(err)
	}
	w := ws[0]
	if w.Len() != 384 {
		b.Fatalf("window has %d tokens", w.Len())
	}
	start := make([]float32, w.Len())
	end := make([]float32, w.Len())
	for i := range start {
		start[i] = float32(6 * math.Sin(float64(i)*0.37))
		end[i] = float32(6 * math.Cos(float64(i)*0.23))
	}
	return w, ctx, start, end
}

func BenchmarkDecodeWindow(b *testing.B) {
	for _, c := range []struct {
		name   string
		k      int
		legacy bool
	}{{"top1", 1, false}, {"top5", 5, false}, {"top1-legacy", 1, true}, {"top5-legacy", 5, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := settings(func(s *Settings) { s.TopK, s.LegacyTopK = c.k, c.legacy })
			w, ctx, start, end := benchWindow(b, s)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeWindow(w, ctx, testSpecial, start, end, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWindows(b *testing.B) {
	_, q := toks("what is the name of the tower in the city ?")
	_, ctx := toks(strings.TrimSpace(strings.Repeat("tok|en ", 5000)))
	s := DefaultSettings()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Windows(q, ctx, testSpecial, s); err != nil {
			b.Fatal(err)
		}
	}
}
