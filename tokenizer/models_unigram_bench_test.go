package tokenizer

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkEncodeXLMR and BenchmarkEncodeALBERT report tokens per second
// of the SentencePiece families on English prose: english.txt itself
// (3 KB), ten times over (30 KB, as BenchmarkEncode) and a hundred times
// (300 KB). Run with -cpu 1 for the one-core figure; testdata/bench.mjs or
// the same texts through npm tokenizers give Hugging Face's.
func BenchmarkEncodeXLMR(b *testing.B)   { benchFamily(b, "xlmr") }
func BenchmarkEncodeALBERT(b *testing.B) { benchFamily(b, "albert") }

func benchFamily(b *testing.B, family string) {
	tk := familyTokenizer(b, family)
	raw, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		times int
	}{{"3KB", 1}, {"30KB", 10}, {"300KB", 100}} {
		text := strings.Repeat(string(raw)+"\n", c.times)
		b.Run(c.name, func(b *testing.B) {
			tokens := tk.Encode(text).Len()
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tk.Encode(text)
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
