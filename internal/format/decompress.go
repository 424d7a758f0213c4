package format

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Decompress is r's JSON-lines text, for a file stored as f: r itself for
// JSONL, else its gzip members or zstd frames decoded one after another
// (one decoder goroutine, low memory: readers run one per input file).
// close releases the decoder; Parquet has no text and is refused.
func Decompress(r io.Reader, f Format) (text io.Reader, close func(), err error) {
	switch f {
	case Gzip:
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return z, func() { z.Close() }, nil
	case Zstd:
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return z, z.Close, nil
	case Parquet:
		return nil, nil, fmt.Errorf("%s is not JSON lines", f)
	}
	return r, func() {}, nil
}
