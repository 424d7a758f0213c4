package output

import (
	"bufio"
	"hash"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"qa-shard/internal/format"
	"qa-shard/internal/pin"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// stream writes JSONL answers, plain or compressed. A compressed stream
// ends a gzip member or zstd frame at every seal, so the file cut at any
// journaled length is a complete compressed file: gzip and zstd readers
// read concatenated members and frames as one text, and rank files
// concatenate the same way.
type stream struct {
	*record.Writer
	file    file // nil for standard output
	counter *countingWriter
	buf     *bufio.Writer
	unit    *member
	pinned  *pin.File // nil for standard output
}

func newStream(f file, form format.Format, base int64, h hash.Hash, keep []string) *stream {
	c := &countingWriter{w: f, n: base, h: h}
	s := &stream{counter: c, buf: bufio.NewWriterSize(c, 1<<20)}
	if f != file(os.Stdout) {
		s.file = f
	}
	s.unit = &member{w: s.buf}
	switch form {
	case format.Gzip:
		s.unit.z = gzip.NewWriter(nil)
	case format.Zstd:
		z, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		s.unit.z = z
	}
	s.Writer = record.NewWriter(s.unit, keep...)
	return s
}

// seal stops at the first failure: the same failure seen again by the
// later steps would only repeat it.
func (s *stream) seal() error {
	for _, step := range []func() error{s.Writer.Flush, s.unit.end, s.buf.Flush} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (s *stream) size() (int64, int) { return s.counter.n, 0 }

func (s *stream) hashState() string { return hashState(s.counter.h) }

func (s *stream) digest() string { return "" }

func (s *stream) check() error {
	if s.pinned == nil {
		return nil
	}
	return s.pinned.Check(s.counter.n)
}

func (s *stream) syncer() journal.Syncer {
	if s.file == nil {
		return noSync{}
	}
	return s.file
}

func (s *stream) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// compressor is what gzip.Writer and zstd.Encoder share.
type compressor interface {
	io.WriteCloser
	Reset(io.Writer)
}

// member passes writes through, compressed when z is set: a member (or
// frame) starts at the first write after a seal, so a checkpoint with
// nothing new adds no empty member.
type member struct {
	w    io.Writer
	z    compressor
	open bool
}

func (m *member) Write(p []byte) (int, error) {
	if m.z == nil {
		return m.w.Write(p)
	}
	if !m.open {
		m.z.Reset(m.w)
		m.open = true
	}
	return m.z.Write(p)
}

func (m *member) end() error {
	if m.z == nil || !m.open {
		return nil
	}
	m.open = false
	return m.z.Close()
}

// countingWriter knows the answers file's length without asking the OS,
// and hashes what reached it (h; nil: no digest, see digest.go).
type countingWriter struct {
	w io.Writer
	n int64
	h hash.Hash
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if c.h != nil {
		c.h.Write(p[:n])
	}
	return n, err
}

type noSync struct{}

func (noSync) Sync() error { return nil }
