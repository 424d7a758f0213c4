package input

import "github.com/parquet-go/parquet-go/format"

type parquetRowGroup = format.RowGroup

// chunkStart is where a column chunk's bytes begin: its dictionary page
// when it has one, else its first data page (as parquet-go reads it).
func chunkStart(m *format.ColumnMetaData) int64 {
	if m.DictionaryPageOffset != 0 {
		return m.DictionaryPageOffset
	}
	return m.DataPageOffset
}
