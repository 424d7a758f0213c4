// Package corpus writes corpora in every input format for tests,
// benchmarks and tools/convert: compressed JSONL (gzip members or zstd
// frames) and Parquet with chosen row groups.
package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
			if _, err := z.Write(c); err != nil {
				return err
			}
			if err := z.Close(); err != nil {
				return err
			}
		case strings.HasSuffix(path, ".zst"), strings.HasSuffix(path, ".zstd"):
			z, err := zstd.NewWriter(&out)
			if err != nil {
				return err
			}
			if _, err := z.Write(c); err != nil {
				return err
			}
			if err := z.Close(); err != nil {
				return err
			}
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

// ReadParquet reads every row of a Parquet file, or of a folder's
// part-*.parquet files in order, as generic values (nil for null).
func ReadParquet(path string) ([]map[string]any, error) {
	paths := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		paths, _ = filepath.Glob(filepath.Join(path, "part-*.parquet"))
		slices.Sort(paths)
	}
	var rows []map[string]any
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		r := parquet.NewReader(pf)
		for {
			m := map[string]any{}
			if err := r.Read(&m); err != nil {
				if !errors.Is(err, io.EOF) {
					f.Close()
					return nil, fmt.Errorf("%s: %w", p, err)
				}
				break
			}
			rows = append(rows, m)
		}
		r.Close()
		f.Close()
	}
	return rows, nil
}
