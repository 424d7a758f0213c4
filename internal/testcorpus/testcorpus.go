// Package testcorpus writes corpora in every input format for tests,
// benchmarks and tools/convert: compressed JSONL (gzip members or zstd
// frames) and Parquet with chosen row groups.
package testcorpus

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// WriteText writes JSONL text to path, compressed by its extension (.gz,
// .zst), in members or frames of about every bytes of text (0: one).
func WriteText(path string, text []byte, every int) error {
	var out bytes.Buffer
	chunks := [][]byte{text}
	if every > 0 {
		chunks = nil
		for len(text) > 0 {
			n := min(every, len(text))
			if i := bytes.IndexByte(text[n-1:], '\n'); i >= 0 {
				n += i
			} else {
				n = len(text)
			}
			chunks, text = append(chunks, text[:n]), text[n:]
		}
	}
	for _, c := range chunks {
		switch {
		case strings.HasSuffix(path, ".gz"):
			z := gzip.NewWriter(&out)
			z.Write(c)
			z.Close()
		case strings.HasSuffix(path, ".zst"), strings.HasSuffix(path, ".zstd"):
			z, _ := zstd.NewWriter(&out)
			z.Write(c)
			z.Close()
		default:
			out.Write(c)
		}
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// WriteParquet writes rows (structs with parquet tags) to path, rowsPerGroup
// rows per row group.
func WriteParquet[T any](path string, rows []T, rowsPerGroup int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Zstd))
	for len(rows) > 0 {
		n := min(rowsPerGroup, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			f.Close()
			return err
		}
		if err := w.Flush(); err != nil { // ends the row group
			f.Close()
			return err
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
