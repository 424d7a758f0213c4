package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
	"qa-shard/output/logits"
)

// Reading an answers output back, in every format this package writes:
// JSON lines, plain or compressed by the file's name (.gz; .zst or .zstd,
// one member or frame per checkpoint), or a .parquet folder of
// part-NNNNN.parquet files. The resume checks (verify.go) and qa-shard
// eval (evaluate) both read answers through it: EachAnswer opens an
// output in either format and hands each record as internal/record reads
// it (record.ReadLine, record.ReadRow).

// OpenText opens path as JSON lines, decompressed by its name.
func OpenText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	text, closeZ, err := textOf(f, path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return readCloser{text, closeZ, f}, nil
}

// textOf is the JSON-lines text of r, the bytes of the answers file path
// (or their first part): decompressed when the name says so.
func textOf(r io.Reader, path string) (io.Reader, func(), error) {
	if f := format.Of(path); f != format.JSONL {
		return format.Decompress(r, f)
	}
	return r, func() {}, nil
}

// readCloser is a file's text: closing it releases the decoder and the
// file.
type readCloser struct {
	io.Reader
	closeText func()
	file      *os.File
}

func (r readCloser) Close() error {
	r.closeText()
	return r.file.Close()
}

// ParquetParts lists the Parquet files of an answers output: the parts of
// a folder in order, or the file itself. ok is false for other formats.
func ParquetParts(path string) (parts []string, ok bool, err error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, format.Of(path) == format.Parquet, err
	case !st.IsDir():
		return []string{path}, format.Of(path) == format.Parquet, nil
	}
	parts, err = partfolder.List(path)
	if err == nil && len(parts) == 0 {
		err = fmt.Errorf("%s is a folder without part-*.parquet files: pass an answers file, or the .parquet folder qa-shard wrote", path)
	}
	return parts, true, err
}

// EachAnswer calls fn with every record of the answers output path, in
// order, in any format this package writes (JSON lines, plain or
// compressed; a Parquet file or part folder); n counts records from 1. A
// JSON line that is no answer record (neither "answer" nor "error") is an
// error naming its line.
func EachAnswer(path string, fn func(n int64, a record.Read) error) error {
	parts, isParquet, err := ParquetParts(path)
	if isParquet {
		if err != nil {
			return err
		}
		var n int64
		for _, part := range parts {
			if err := eachParquetAnswer(part, func(a record.Read) error { n++; return fn(n, a) }); err != nil {
				return fmt.Errorf("%s: %w", part, err)
			}
		}
		return nil
	}
	f, err := OpenText(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var n int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			a, derr := record.ReadLine(b)
			if derr == nil {
				n++
				derr = fn(n, a)
			}
			if derr != nil {
				return fmt.Errorf("%s line %d: %w", path, line, derr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// eachParquetAnswer calls fn with every row of one Parquet answers file.
func eachParquetAnswer(path string, fn func(a record.Read) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return err
	}
	for _, col := range record.RowColumns {
		if _, ok := pf.Schema().Lookup(col); !ok {
			return fmt.Errorf("no %q column (qa-shard's answers have id, question and answer)", col)
		}
	}
	r := parquet.NewGenericReader[map[string]any](pf, pf.Schema())
	defer r.Close()
	rows := make([]map[string]any, 256)
	for n := int64(0); ; {
		for i := range rows {
			rows[i] = map[string]any{}
		}
		k, err := r.Read(rows)
		for _, m := range rows[:k] {
			n++
			a := record.ReadRow(m)
			if ferr := fn(a); ferr != nil {
				return fmt.Errorf("row %d: %w", n, ferr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// sealedPart is what the footer of one sealed Parquet answers part says:
// its rows, the run it names (logits.RunKey; "" in parts written before
// parts named it) and its footer for the journal's digest.
type sealedPart struct {
	rows   int64
	run    string
	footer partfolder.Footer
}

// readPart reads one sealed Parquet answers part's footer. A file that
// cannot be opened gives an *openError; one that cannot be read as
// Parquet, another error.
func readPart(path string) (sealedPart, error) {
	f, err := os.Open(path)
	if err != nil {
		return sealedPart{}, &openError{err}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return sealedPart{}, err
	}
	footer, err := partfolder.ReadFooter(f, path, info.Size())
	if err != nil {
		return sealedPart{}, err
	}
	pf, err := parquet.OpenFile(f, info.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return sealedPart{}, err
	}
	run, _ := pf.Lookup(logits.RunKey)
	return sealedPart{rows: pf.NumRows(), run: run, footer: footer}, nil
}

// openError is a file that could not be opened, as opposed to one whose
// content is not what it should be.
type openError struct{ err error }

func (e *openError) Error() string { return e.err.Error() }
func (e *openError) Unwrap() error { return e.err }
