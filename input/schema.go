package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// Schema decides the run's schema (record.Schema: the kind of ids and of
// each kept field) from the run's first record: the first non-blank line
// of the first JSONL file that has one, or the column types of the first
// Parquet file that has rows. Every rank reads the same record, so every
// rank and a single process agree; it costs one line (or one footer).
// idType "string" or "integer" overrides the id's kind.
func Schema(files []File, opt record.Options, idType string) (record.Schema, error) {
	f, err := firstOf(files, opt)
	return f.schema(idType), err
}

// first is what the run's first record tells before any document is read.
type first struct {
	s     record.Schema
	found bool   // the input has a record
	name  string // the file it is in
	// asks: the record asks questions of its own (AsksOf), or, in a
	// Parquet file, a question column exists; unknown (a line that is no
	// JSON object) counts as asking.
	asks bool
}

func (f first) schema(idType string) record.Schema {
	switch idType {
	case "string":
		f.s.ID = record.String
	case "integer":
		f.s.ID = record.Int
	}
	return f.s
}

func firstOf(files []File, opt record.Options) (first, error) {
	out := first{s: record.Schema{Keep: make([]record.Kind, len(opt.Fields.Keep))}}
	for i := range files {
		found, err := firstRecord(&files[i], opt, &out)
		if err != nil {
			return out, err
		}
		if found {
			out.found, out.name = true, files[i].Name
			break
		}
	}
	return out, nil
}

func firstRecord(f *File, opt record.Options, out *first) (bool, error) {
	s := &out.s
	if f.Size == 0 {
		return false, nil
	}
	if err := Sniff(f); err != nil {
		return false, err
	}
	if f.Path == "-" {
		line := peekLine(stdin(), opt.MaxLineBytes)
		got, _ := record.SchemaOf(line, opt.Fields)
		*s = got
		out.asks = asks(line, opt.Fields)
		return len(bytes.TrimSpace(line)) > 0, nil
	}
	h, err := open(f)
	if err != nil {
		return false, err
	}
	defer h.Close()
	if f.Format == format.Parquet {
		pf, err := openParquet(f, h)
		if err != nil || pf.NumRows() == 0 {
			return false, err
		}
		m := record.NewMapper(opt)
		cols, err := resolve(f, pf, m.Names(), m.Context())
		if err != nil {
			return false, err
		}
		s.ID = record.String
		if c := cols[0]; c != nil && kindOf(c) == record.Int {
			s.ID = record.Int
		}
		for i := range s.Keep {
			s.Keep[i] = kindOf(cols[len(cols)-len(s.Keep)+i])
		}
		for i, name := range m.Names() {
			out.asks = out.asks || (cols[i] != nil && slices.Contains(m.QuestionFields(), name))
		}
		return true, nil
	}
	t, err := openText(f, h, 0)
	if err != nil {
		return false, err
	}
	defer t.close()
	line, err := firstLine(t, opt.MaxLineBytes)
	if err != nil || line == nil {
		return false, err
	}
	got, _ := record.SchemaOf(line, opt.Fields)
	*s = got
	out.asks = asks(line, opt.Fields)
	return true, nil
}

// asks: a JSONL record asks a question of its own, or is no JSON object
// (then nothing is known, and the run goes on).
func asks(line []byte, f record.Fields) bool {
	a, known := record.AsksOf(line, f)
	return a || !known
}

// firstLine is the first non-blank line of r, or nil; a line longer than
// max counts as a record of no known kinds.
func firstLine(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = record.DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= max+2 {
			line = append(line, chunk...)
		} else {
			line = []byte("{}") // too long to hold: String kinds
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, fmt.Errorf("reading the first record: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, nil
		}
		line = line[:0]
	}
}

// peekLine is standard input's first line, left unread (up to the buffer).
func peekLine(br *bufio.Reader, max int) []byte {
	// Peek a little more at a time: a slow producer is not made to fill
	// the whole buffer before the run starts.
	var b []byte
	for n := 4096; ; n *= 2 {
		var err error
		b, err = br.Peek(min(n, br.Size()))
		if bytes.IndexByte(b, '\n') >= 0 || err != nil || n >= br.Size() {
			break
		}
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return b
		}
		if line := b[:i]; len(bytes.TrimSpace(line)) > 0 {
			return line
		}
		b = b[i+1:]
	}
	return nil
}

// Identity is what the run's fingerprint knows of its input files (their
// names and sizes, in order; fingerprint.Input), and whether the input is
// standard input, whose fingerprint is recorded as it is read (see
// Reader.At: the SHA-256 of the stream's text up to the resume point,
// which a resume of the same stream replayed reproduces).
func (p *Plan) Identity() (files []fingerprint.File, stdin bool) {
	if len(p.Files) == 1 && p.Files[0].Path == "-" {
		return nil, true
	}
	files = make([]fingerprint.File, len(p.Files))
	for i, f := range p.Files {
		files[i] = fingerprint.File{Name: f.Name, Size: f.Size}
	}
	return files, false
}
