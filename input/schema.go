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
// idType "string" or "integer" overrides the id's kind. Standard input
// is not waited for when nothing is left to decide (the id's kind given,
// no kept fields): the model loads before the first record arrives, so a
// long-lived pipe's producer learns at once whether the run started.
func Schema(files []File, opt record.Options, idType string) (record.Schema, error) {
	f, err := firstOf(files, opt, idType)
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
	// fields: which fields the first records hold (see checkFields).
	fields sampled
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

// firstOf reads the run's first record. Standard input is not waited for
// when the schema has nothing left to decide (idType given, no kept
// fields): then its first record is not known (found false) and nothing
// is refused for it before the run.
func firstOf(files []File, opt record.Options, idType string) (first, error) {
	out := first{s: record.Schema{Keep: make([]record.Kind, len(opt.Fields.Keep))}}
	decided := (idType == "string" || idType == "integer") && len(opt.Fields.Keep) == 0
	for i := range files {
		if decided && files[i].Path == "-" {
			break
		}
		found, err := firstRecord(&files[i], opt, &out)
		if err != nil {
			return out, err
		}
		if found {
			out.found, out.name = true, files[i].Name
			return out, sampleMore(files[i+1:], opt, &out)
		}
	}
	return out, nil
}

func firstRecord(f *File, opt record.Options, out *first) (bool, error) {
	s := &out.s
	if f.Size == 0 {
		return false, nil
	}
	if err := sniff(f); err != nil {
		return false, err
	}
	if f.Path == "-" {
		line := peekLine(stdin(f), opt.MaxLineBytes)
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
	if f.Format == format.SQuAD {
		s.ID = record.String // paragraphs have no ids: the default ids are strings
		out.asks = true      // a SQuAD paragraph asks the questions of its qas
		return true, nil
	}
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
		out.fields = sampled{present: make([]bool, len(cols)), keys: columnNames(pf.Schema()), n: 1, columns: true}
		for i, c := range cols {
			out.fields.present[i] = c != nil
		}
		return true, nil
	}
	t, err := openText(f, h, 0)
	if err != nil {
		return false, err
	}
	defer t.close()
	lines, err := firstLines(t, opt.MaxLineBytes)
	if err != nil || len(lines) == 0 {
		return false, err
	}
	line := lines[0]
	got, _ := record.SchemaOf(line, opt.Fields)
	*s = got
	out.asks = asks(line, opt.Fields)
	out.fields = sampleFields(lines, opt.Fields)
	return true, nil
}

// asks: a JSONL record asks a question of its own, or is no JSON object
// (then nothing is known, and the run goes on).
func asks(line []byte, f record.Fields) bool {
	a, known := record.AsksOf(line, f)
	return a || !known
}

// The first records a run reads before it starts: the first decides the
// schema, and all of them whether a field the flags name exists at all.
const (
	sampleRecords = 100
	sampleBytes   = 1 << 20
)

// firstLines are the first non-blank lines of r: up to sampleRecords of
// them, or as many as end within sampleBytes (the first always). A line
// longer than max counts as a record of no known kinds ("{}").
func firstLines(r io.Reader, max int) ([][]byte, error) {
	if max <= 0 {
		max = record.DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var lines [][]byte
	var line []byte
	read := 0
	for len(lines) < sampleRecords {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if len(line)+len(chunk) <= max+2 {
			line = append(line, chunk...)
		} else {
			line = []byte("{}") // too long to hold: String kinds
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			if len(lines) > 0 {
				return lines, nil // the first decides; the sample may end early
			}
			return nil, fmt.Errorf("reading the first record: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if len(lines) > 0 && read > sampleBytes {
				break
			}
			lines = append(lines, line)
		}
		if err != nil {
			break
		}
		line = nil
	}
	return lines, nil
}

// peekLine is standard input's first non-blank line, left unread (up to
// the buffer). It waits for one more read at a time, never for a fuller
// buffer: a producer that writes one record and waits for its answer (a
// long-lived pipe, as the Python package keeps) is answered without
// writing more.
func peekLine(br *bufio.Reader, max int) []byte {
	for {
		_, err := br.Peek(br.Buffered() + 1) // one more read, however short
		b, _ := br.Peek(br.Buffered())
		if line, ok := peekedLine(b); ok || err != nil || len(b) >= br.Size() {
			return line
		}
	}
}

// peekedLine is the first non-blank line of b, and whether it is complete
// (ends in a newline); else what b holds after its blank lines.
func peekedLine(b []byte) ([]byte, bool) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if line := b[:i]; len(bytes.TrimSpace(line)) > 0 {
			return line, true
		}
		b = b[i+1:]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, false
	}
	return b, false
}

// stdin reports whether the plan reads standard input (alone, as Find
// allows it).
func (p *Plan) stdin() bool { return len(p.Files) == 1 && p.Files[0].Path == "-" }

// Identity is what the run's fingerprint knows of its input files (their
// names and sizes, in order; fingerprint.Input), and whether the input is
// standard input, whose fingerprint is recorded as it is read (see
// Reader.At: the SHA-256 of the stream's text up to the resume point,
// which a resume of the same stream replayed reproduces).
func (p *Plan) Identity() (files []fingerprint.File, stdin bool) {
	if p.stdin() {
		return nil, true
	}
	files = make([]fingerprint.File, len(p.Files))
	for i, f := range p.Files {
		files[i] = fingerprint.File{Name: f.Name, Size: f.Size}
	}
	return files, false
}
