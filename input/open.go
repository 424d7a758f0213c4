package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/internal/format"
)

// handle is an open input file. Every byte the package reads from a file
// goes through one, so a test can count what a rank reads.
type handle interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
}

// openFile opens an input file; tests replace it to count bytes read.
var openFile = func(path string) (handle, error) { return os.Open(path) }

func open(f *File) (handle, error) {
	if f.Path == "-" {
		return nil, fmt.Errorf("%w: standard input cannot be reopened", ErrInput)
	}
	h, err := openFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open %s: %w", ErrInput, f.Path, err)
	}
	return h, nil
}

// sniff corrects a file's format by its magic bytes: a .jsonl file that
// holds gzip data is read as gzip; a .json file that holds a SQuAD dataset
// (format.IsSQuAD) is read as one. Ranks call it before splitting a file,
// since compressed data cannot be split at a byte.
func sniff(f *File) error {
	if f.sniffed || f.Path == "-" || f.Size == 0 {
		return nil
	}
	h, err := open(f)
	if err != nil {
		return err
	}
	defer h.Close()
	var b [format.MagicSize]byte
	n, err := h.ReadAt(b[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: reading %s: %w", ErrInput, f.Path, err)
	}
	if m, ok := format.Sniff(b[:n]); ok {
		f.Format = m
	} else if format.MaybeSQuAD(f.Path) {
		if _, err := h.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("%w: reading %s: %w", ErrInput, f.Path, err)
		}
		if format.IsSQuAD(bufio.NewReader(h)) {
			f.Format = format.SQuAD
		}
	}
	if f.Format == format.JSONL {
		if err := notLines(f, h); err != nil {
			return err
		}
	}
	f.sniffed = true
	return nil
}

// notLines refuses a JSONL input that is one JSON text over many lines
// (a JSON array of records, a pretty-printed object), which read as lines
// would give an error record for every line.
func notLines(f *File, h handle) error {
	var b [4096]byte
	n, err := h.ReadAt(b[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: reading %s: %w", ErrInput, f.Path, err)
	}
	head := bytes.TrimPrefix(b[:n], []byte{0xEF, 0xBB, 0xBF})
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	first = bytes.TrimSpace(first)
	switch {
	case bytes.HasPrefix(first, []byte("[")):
		return fmt.Errorf("%w: %s holds a JSON array, not JSON lines: qa-shard reads one JSON object per line (JSONL); convert it first, e.g. jq -c '.[]' %s > %s.jsonl", ErrInput, f.Name, f.Path, strings.TrimSuffix(f.Path, filepath.Ext(f.Path)))
	case string(first) == "{":
		return fmt.Errorf("%w: %s holds JSON spread over several lines (pretty-printed), not JSON lines: qa-shard reads one JSON object per line (JSONL); convert it first, e.g. jq -c . %s > %s.jsonl", ErrInput, f.Name, f.Path, strings.TrimSuffix(f.Path, filepath.Ext(f.Path)))
	}
	return nil
}

// counter counts the bytes read from a file and remembers its last
// error, to tell a failing disk from corrupt data. It implements
// io.ByteReader so gzip reads through it without a buffer of its own,
// which keeps the count at what the decompressor consumed.
type counter struct {
	br  *bufio.Reader
	n   int64
	err error
}

func newCounter(r io.Reader) *counter {
	c := &counter{}
	c.br = bufio.NewReaderSize(readerFunc(func(p []byte) (int, error) {
		n, err := r.Read(p)
		if err != nil && !errors.Is(err, io.EOF) {
			c.err = err
		}
		return n, err
	}), 256<<10)
	return c
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *counter) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// text is a JSONL file's text: the file itself, or its decompression.
type text struct {
	io.Reader
	raw   *counter // the file's bytes, as stored
	base  int64    // the file offset raw counts from
	close func()
}

// openText opens a JSONL file's text at its start; a plain file may
// instead start at byte from (compressed text cannot be entered midway).
func openText(f *File, r io.Reader, from int64) (*text, error) {
	if h, ok := r.(handle); ok && from > 0 {
		if _, err := h.Seek(from, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%w: seeking in %s: %w", ErrInput, f.Path, err)
		}
	}
	raw := newCounter(r)
	t := &text{Reader: raw, raw: raw, close: func() {}}
	if _, ok := r.(handle); ok {
		t.base = from
	}
	if f.Path == "-" {
		if b, _ := raw.br.Peek(format.MagicSize); len(b) > 0 {
			f.Format, _ = format.Sniff(b)
		}
	}
	if f.Format == format.Parquet {
		return nil, fmt.Errorf("%w: %s is Parquet, which cannot be streamed from standard input: give the file", ErrInput, f.Name)
	}
	if f.Format != format.JSONL {
		z, closeZ, err := format.Decompress(raw, f.Format)
		if err != nil {
			return nil, corrupt(f, raw, err)
		}
		t.Reader, t.close = &decoded{r: z, f: f, raw: raw}, closeZ
	}
	return t, nil
}

// decoded turns a decompressor's failures into ErrCorrupt naming the file
// and where in it the data broke, unless the file itself failed to read.
type decoded struct {
	r   io.Reader
	f   *File
	raw *counter
}

func (d *decoded) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = corrupt(d.f, d.raw, err)
	}
	return n, err
}

func corrupt(f *File, raw *counter, err error) error {
	if raw.err != nil && errors.Is(err, raw.err) {
		return fmt.Errorf("reading %s: %w", f.Path, err)
	}
	what := "is corrupt"
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		what = "ends early (a truncated file)"
	}
	return fmt.Errorf("%w: %s: the %s data %s at compressed byte %d (%w): replace the file with a good copy (a run that saved documents before this point continues with --resume)",
		ErrCorrupt, f.Path, f.Format, what, raw.n, err)
}
