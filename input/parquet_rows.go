package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// rowReader yields the documents of a run of row groups of one Parquet
// file. Each group's column chunks that the run needs are read whole, in
// column order, through the fingerprint hash, and decoded from memory:
// the hash covers exactly the bytes a document depends on, and only the
// needed columns are read.
type rowReader struct {
	f      *File
	pf     *parquet.File
	cols   []*column // one per mapped field; nil: absent
	groups []rowGroup
	g      int // the next group to load
	mapper *record.Mapper
	hash   hash.Hash

	cursors []*cursor // the loaded group's, one per mapped field
	row     int64     // the next row, in the file
	end     int64     // the loaded group's end row
	group   rowGroup
	vals    []json.RawMessage
	buf     []byte
}

func newRowReader(f *File, pf *parquet.File, groups []rowGroup, m *record.Mapper, h hash.Hash) (*rowReader, error) {
	cols, err := resolve(f, pf, m.Names(), m.Context())
	if err != nil {
		return nil, err
	}
	return &rowReader{f: f, pf: pf, cols: cols, groups: groups, mapper: m, hash: h, vals: make([]json.RawMessage, len(cols))}, nil
}

// load reads the next group's needed chunks.
func (r *rowReader) load() error {
	g := r.groups[r.g]
	r.g++
	rg := r.pf.RowGroups()[g.index]
	chunks := map[int]memAt{}
	r.cursors = make([]*cursor, len(r.cols))
	for i, c := range r.cols {
		if c == nil {
			continue
		}
		fc, ok := rg.ColumnChunks()[c.leaf.ColumnIndex].(*parquet.FileColumnChunk)
		if !ok {
			return fmt.Errorf("%w: %s: unexpected column chunk type", ErrInput, r.f.Name)
		}
		mem, done := chunks[c.leaf.ColumnIndex]
		if !done {
			md := &r.pf.Metadata().RowGroups[g.index].Columns[c.leaf.ColumnIndex].MetaData
			start := chunkStart(md)
			b := make([]byte, md.TotalCompressedSize)
			if _, err := r.pf.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("%w: reading %s row group %d: %w", ErrInput, r.f.Name, g.index, err)
			}
			r.hash.Write(b)
			mem = memAt{b: b, start: start}
			chunks[c.leaf.ColumnIndex] = mem
		}
		r.cursors[i] = &cursor{pages: fc.PagesFrom(mem), col: c}
	}
	r.group, r.row, r.end = g, g.row, g.row+g.rows
	return nil
}

// skip drops rows up to (not including) row, within the loaded group.
func (r *rowReader) skip(row int64) error {
	for r.row < row {
		for _, c := range r.cursors {
			if c != nil {
				if _, err := c.next(); err != nil {
					return r.broken(err)
				}
			}
		}
		r.row++
	}
	return nil
}

// next returns the next row as a document, io.EOF after the last group.
func (r *rowReader) next(doc *record.Document) error {
	for r.cursors == nil || r.row >= r.end {
		if r.g >= len(r.groups) {
			return io.EOF
		}
		if err := r.load(); err != nil {
			return err
		}
	}
	var bad error
	r.buf = r.buf[:0]
	for i, c := range r.cursors {
		r.vals[i] = nil
		if c == nil {
			continue
		}
		vs, err := c.next()
		if err != nil {
			return r.broken(err)
		}
		start := len(r.buf)
		r.buf, bad = appendValues(r.buf, vs, c.col, bad)
		if len(r.buf) > start {
			r.vals[i] = r.buf[start:len(r.buf):len(r.buf)]
		}
	}
	span := r.group.hi - r.group.lo
	i := r.row - r.group.row
	doc.Pos = record.Position{File: r.f.Name, At: r.row, Row: true}
	doc.Bytes = span*(i+1)/r.group.rows - span*i/r.group.rows
	r.row++
	r.mapper.Map(r.vals, bad, doc)
	return nil
}

func (r *rowReader) broken(err error) error {
	return fmt.Errorf("%w: %s row group %d: %w", ErrCorrupt, r.f.Name, r.group.index, err)
}

// appendValues appends one row's values of a column as JSON (an array for
// a list); nothing for a null. bad collects the first invalid UTF-8.
func appendValues(b []byte, vs []parquet.Value, c *column, bad error) ([]byte, error) {
	if !c.list {
		if len(vs) == 0 || vs[0].IsNull() {
			return b, bad
		}
		return appendValue(b, vs[0], bad)
	}
	// A single value below the repeated level means no element: an empty
	// list when everything above the repeated node is present, else null.
	if len(vs) == 0 {
		return b, bad
	}
	if d := vs[0].DefinitionLevel(); len(vs) == 1 && d < c.repDef {
		if d == c.repDef-1 {
			return append(b, "[]"...), bad
		}
		return b, bad
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		if v.IsNull() || v.DefinitionLevel() < c.leaf.MaxDefinitionLevel {
			b = append(b, "null"...)
			continue
		}
		b, bad = appendValue(b, v, bad)
	}
	return append(b, ']'), bad
}

func appendValue(b []byte, v parquet.Value, bad error) ([]byte, error) {
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.AppendBool(b, v.Boolean()), bad
	case parquet.Int32:
		return strconv.AppendInt(b, int64(v.Int32()), 10), bad
	case parquet.Int64:
		return strconv.AppendInt(b, v.Int64(), 10), bad
	case parquet.Float, parquet.Double:
		f := v.Double()
		if v.Kind() == parquet.Float {
			f = float64(v.Float())
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(b, "null"...), bad
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64), bad
	case parquet.ByteArray:
		s := v.ByteArray()
		if bad == nil && !utf8.Valid(s) {
			bad = fmt.Errorf("%w: a string column holds bytes that are not UTF-8 (re-encode the input as UTF-8)", record.ErrInvalidUTF8)
		}
		return record.AppendJSONString(b, string(s)), bad
	}
	return record.AppendJSONString(b, v.String()), bad
}

// cursor hands out one row's values of a column at a time.
type cursor struct {
	pages *parquet.FilePages
	col   *column
	vals  []parquet.Value
	i     int
	row   []parquet.Value
}

// next returns the values of the next row: one for a plain column, the
// elements for a list.
func (c *cursor) next() ([]parquet.Value, error) {
	c.row = c.row[:0]
	for {
		if c.i >= len(c.vals) {
			if err := c.fill(); err != nil {
				if errors.Is(err, io.EOF) && len(c.row) > 0 {
					return c.row, nil
				}
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		v := c.vals[c.i]
		if len(c.row) > 0 && v.RepetitionLevel() == 0 {
			return c.row, nil
		}
		c.row = append(c.row, v)
		c.i++
		if !c.col.list {
			return c.row, nil
		}
	}
}

// fill reads the next page's values, copied out of the page's buffers.
func (c *cursor) fill() error {
	page, err := c.pages.ReadPage()
	if err != nil {
		return err
	}
	defer parquet.Release(page)
	n := int(page.NumValues())
	if cap(c.vals) < n {
		c.vals = make([]parquet.Value, n)
	}
	c.vals, c.i = c.vals[:n], 0
	got, err := page.Values().ReadValues(c.vals)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	c.vals = c.vals[:got]
	for i := range c.vals {
		c.vals[i] = c.vals[i].Clone()
	}
	return nil
}

// memAt serves a column chunk read into memory at its offset in the file.
type memAt struct {
	b     []byte
	start int64
}

func (m memAt) ReadAt(p []byte, off int64) (int, error) {
	i := off - m.start
	if i < 0 || i > int64(len(m.b)) {
		return 0, fmt.Errorf("read at %d outside the loaded column chunk", off)
	}
	n := copy(p, m.b[i:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
