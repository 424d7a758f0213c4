package tokenizer

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkEncode reports tokens per second on English prose (about 40 KB
// per call, the size of a long document); run it with -cpu 1 for the
// one-core figure.
func BenchmarkEncode(b *testing.B) {
	tk := bertTokenizer(b)
	raw, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(raw)+"\n", 10)
	tokens := tk.Encode(text).Len()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tk.Encode(text)
	}
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkEncodeParallel shows that concurrent callers do not contend.
func BenchmarkEncodeParallel(b *testing.B) {
	tk := bertTokenizer(b)
	raw, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	tokens := tk.Encode(text).Len()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tk.Encode(text)
		}
	})
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
