package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next non-blank line as a Document, or io.EOF after the
// last one (or before the first line starting at Options.End). A bad line
// is a Document with Err set, never an error here; the error return is
// only for failures of the underlying reader, after which every call
// returns the same error.
func (r *Stream) Next() (Document, error) {
	for {
		if r.err != nil {
			return Document{}, r.err
		}
		start := r.Offset()
		if r.opt.End > 0 && start >= r.opt.End {
			r.err = io.EOF
			return Document{}, r.err
		}
		if err := r.readLine(); err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("record: reading %s at offset %d: %w", r.opt.File, r.Offset(), err)
			}
			r.err = err
			return Document{}, err
		}
		line := r.buf
		if r.tooLong {
			if !r.hasText {
				continue
			}
		} else if isBlank(line) {
			continue
		}

		// A document's work is its line and the blank lines before it, so
		// the documents' Bytes add up to the whole text read.
		doc := Document{Seq: r.seq, Pos: Position{File: r.opt.File, At: start}, Bytes: r.offset - r.lastEnd}
		r.seq++
		r.lastEnd = r.offset
		if r.tooLong {
			doc.Err = fmt.Errorf("%w: longer than %d bytes (raise --max-line-bytes to accept it)", ErrLineTooLong, r.max)
			return doc, nil
		}
		r.parse(line, &doc)
		return doc, nil
	}
}

// consume counts and tees bytes the Stream has taken from the stream.
func (r *Stream) consume(b []byte) {
	r.offset += int64(len(b))
	if r.opt.Tee != nil && len(b) > 0 {
		r.opt.Tee.Write(b)
	}
}

// readLine leaves the next line, without its "\n" or "\r\n", in r.buf. A
// line longer than r.max is not kept: it is read through in bufio-sized
// chunks, remembering only whether it had text, so one huge line cannot
// exhaust memory. It returns io.EOF only when no bytes were left.
func (r *Stream) readLine() error {
	r.buf = r.buf[:0]
	r.tooLong, r.hasText = false, false
	if r.offset == 0 && r.opt.Base == 0 {
		// Editors on Windows start UTF-8 files with a BOM; it is not JSON.
		if b, _ := r.br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
			r.consume(b)
			_, _ = r.br.Discard(len(utf8BOM)) // the bytes Peek returned: cannot fail
		}
	}
	keep := r.max + 2 // room for the "\r\n" trimmed below
	got := false
	grew := false // More said the text grew: the next read must find it
	for {
		if r.opt.Idle != nil && !r.lineBuffered() {
			r.opt.Idle()
		}
		chunk, err := r.br.ReadSlice('\n')
		r.consume(chunk)
		got = got || len(chunk) > 0
		if len(chunk) > 0 {
			grew = false
		}
		switch {
		case r.tooLong:
			r.hasText = r.hasText || !isBlank(chunk)
		case len(r.buf)+len(chunk) <= keep:
			r.buf = append(r.buf, chunk...)
		default:
			r.tooLong = true
			r.hasText = !isBlank(r.buf) || !isBlank(chunk)
			r.buf = r.buf[:0]
		}
		switch {
		case err == nil:
			// The line ended in '\n'.
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !grew && r.opt.More != nil && r.opt.More() {
				grew = true
				continue // appended to: read on, the line's end included
			}
			if !got {
				return io.EOF
			}
		default:
			return err
		}
		break // the line is complete: it ended in '\n' or at EOF
	}
	if r.tooLong {
		return nil
	}
	r.buf = bytes.TrimSuffix(r.buf, []byte{'\n'})
	r.buf = bytes.TrimSuffix(r.buf, []byte{'\r'})
	if len(r.buf) > r.max {
		r.tooLong = true
		r.hasText = !isBlank(r.buf)
		r.buf = r.buf[:0]
	}
	return nil
}

// lineBuffered says whether a whole line is in the buffer already, so the
// next ReadSlice needs no read from the stream.
func (r *Stream) lineBuffered() bool {
	b, _ := r.br.Peek(r.br.Buffered()) // what is buffered: cannot fail
	return bytes.IndexByte(b, '\n') >= 0
}

// isBlank reports whether b is only JSON whitespace (plus \v and \f, which
// editors leave behind and no record starts with).
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n', '\v', '\f':
		default:
			return false
		}
	}
	return true
}
