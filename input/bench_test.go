package input

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// BenchmarkRead reads the same 10,000 documents in each format through a
// Reader (decompression, parsing and the fingerprint hash; no pipeline):
// what one reader goroutine can feed.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	var text strings.Builder
	var rows []pqDoc
	for i := range 10000 {
		ctx := strings.Repeat("the company was founded in paris ", 2+i%20)
		rows = append(rows, pqDoc{ID: fmt.Sprintf("d%d", i), Context: ctx, URL: fmt.Sprintf("u%d", i)})
		fmt.Fprintf(&text, `{"id": "d%d", "context": "%s", "url": "u%d"}`+"\n", i, ctx, i)
	}
	for _, name := range []string{"c.jsonl", "c.jsonl.gz", "c.jsonl.zst", "c.parquet"} {
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, ".parquet") {
			must(b, corpus.WriteParquet(path, rows, 1000))
		} else {
			must(b, corpus.WriteText(path, []byte(text.String()), 0))
		}
		b.Run(strings.TrimPrefix(name, "c."), func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			for b.Loop() {
				files := mustFind(b, []string{path})
				plan, err := Split(files, shard.Rank{World: 1})
				must(b, err)
				s, err := plan.Open(record.Options{Questions: []string{"q"}}, nil, 0)
				must(b, err)
				n := 0
				for {
					if _, err := s.Next(); err != nil {
						break
					}
					n++
				}
				s.Close()
				if n != 10000 {
					b.Fatalf("read %d documents", n)
				}
			}
			b.ReportMetric(float64(b.N)*10000/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
