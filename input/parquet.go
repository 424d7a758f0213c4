package input

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// rowGroup is one row group of a Parquet file, as the footer describes it.
type rowGroup struct {
	index     int
	row, rows int64 // its first row in the file, its number of rows
	// lo and hi are the group's share of the file's bytes for splitting:
	// the first group starts at 0 and each ends where the next starts;
	// the last ends with its data. The footer (which can be large: it
	// holds statistics for every column of every group) is no group's.
	lo, hi int64
}

// openParquet reads a Parquet file's footer (nothing else).
func openParquet(f *File, h handle) (*parquet.File, error) {
	pf, err := parquet.OpenFile(h, f.Size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a readable Parquet file: %w", ErrInput, f.Name, err)
	}
	return pf, nil
}

// layout lists a Parquet file's row groups from its footer.
func layout(f *File) ([]rowGroup, error) {
	h, err := open(f)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	pf, err := openParquet(f, h)
	if err != nil {
		return nil, err
	}
	return groupsOf(pf), nil
}

func groupsOf(pf *parquet.File) []rowGroup {
	md := pf.Metadata().RowGroups
	groups := make([]rowGroup, len(md))
	var row int64
	for i := range md {
		groups[i] = rowGroup{index: i, row: row, rows: md[i].NumRows, hi: groupEnd(&md[i])}
		row += md[i].NumRows
		if i > 0 {
			groups[i].lo = groupStart(&md[i])
			groups[i-1].hi = groups[i].lo
		}
	}
	return groups
}

// groupEnd is the byte after a row group's last column chunk.
func groupEnd(g *parquetRowGroup) int64 {
	var end int64
	for _, c := range g.Columns {
		end = max(end, chunkStart(&c.MetaData)+c.MetaData.TotalCompressedSize)
	}
	return end
}

// groupStart is the first byte of a row group's column chunks.
func groupStart(g *parquetRowGroup) int64 {
	start := int64(-1)
	for _, c := range g.Columns {
		s := chunkStart(&c.MetaData)
		if start < 0 || s < start {
			start = s
		}
	}
	return max(start, 0)
}

// column is where one mapped field lives in a Parquet file.
type column struct {
	leaf   parquet.LeafColumn
	list   bool // a repeated leaf: the field is a list
	repDef int  // a list's definition level when it has an element
}

// resolve finds each of names (dotted paths, as in record.Fields) among
// the file's columns: nil where the file has no such column. A field must
// be a leaf, or a list of leaves; a struct or map must be named by one of
// its fields. The context column is required.
func resolve(f *File, pf *parquet.File, names []string, context string) ([]*column, error) {
	cols := make([]*column, len(names))
	for i, name := range names {
		c, err := find(pf.Schema(), name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInput, f.Name, err)
		}
		cols[i] = c
		if c == nil && name == context {
			return nil, fmt.Errorf("%w: %s has no column %q to answer questions from (--context-field names another); its columns are: %s",
				ErrInput, f.Name, context, strings.Join(columnNames(pf.Schema()), ", "))
		}
	}
	return cols, nil
}

func find(s *parquet.Schema, name string) (*column, error) {
	path, ok := walk(s, []string{name})
	if !ok && strings.Contains(name, ".") {
		path, ok = walk(s, strings.Split(name, "."))
	}
	if !ok {
		return nil, nil
	}
	leaf, ok := s.Lookup(path...)
	if !ok {
		return nil, fmt.Errorf("column %q is a group of several fields (a struct or map): name one of them with a dotted path (%s.<field>)", name, name)
	}
	c := &column{leaf: leaf, list: leaf.MaxRepetitionLevel > 0}
	var node parquet.Node = s
	level := 0
	for _, name := range path {
		for _, f := range node.Fields() {
			if f.Name() == name {
				node = f
			}
		}
		if node.Optional() || node.Repeated() {
			level++
		}
		if node.Repeated() && c.repDef == 0 {
			c.repDef = level
		}
	}
	return c, nil
}

// walk follows names from the schema's root (matching as JSON keys match:
// exactly, else without regard to case), then into a list's element, and
// returns the full path of the leaf it reaches (or of a struct, which
// Lookup refuses).
func walk(s *parquet.Schema, names []string) ([]string, bool) {
	var node parquet.Node = s
	var path []string
	for _, name := range names {
		var next parquet.Field
		for _, f := range node.Fields() {
			if f.Name() == name || (next == nil && strings.EqualFold(f.Name(), name)) {
				next = f
			}
		}
		if next == nil {
			return nil, false
		}
		node, path = next, append(path, next.Name())
	}
	for !node.Leaf() && len(node.Fields()) == 1 {
		node = node.Fields()[0]
		path = append(path, node.(parquet.Field).Name())
	}
	return path, true
}

func columnNames(s *parquet.Schema) []string {
	var names []string
	for _, c := range s.Columns() {
		names = append(names, strings.Join(c, "."))
	}
	return names
}

// kindOf is the Kind a Parquet column gives a kept field (or an id).
func kindOf(c *column) record.Kind {
	if c == nil {
		return record.String
	}
	if c.list {
		return record.JSON
	}
	switch c.leaf.Node.Type().Kind() {
	case parquet.Boolean:
		return record.Bool
	case parquet.Int32, parquet.Int64:
		return record.Int
	case parquet.Float, parquet.Double:
		return record.Float
	}
	return record.String
}
