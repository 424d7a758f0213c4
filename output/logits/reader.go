package logits

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// readAll loads every row of a logits file into memory (kept fields
// aside), for tests and small tools; large files are better read column by
// column with pyarrow or polars.
func readAll(path string) ([]record.LogitsRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("logits: read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("logits: read %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("logits: read %s: %w", path, err)
	}
	col, ok := pf.Schema().Lookup("id")
	if !ok {
		return nil, fmt.Errorf("logits: read %s: no id column", path)
	}
	if col.Node.Type().Kind() == parquet.Int64 {
		return read(pf, func(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) })
	}
	return read(pf, func(id string) json.RawMessage { b, _ := json.Marshal(id); return b })
}

func read[ID string | int64](pf *parquet.File, id func(ID) json.RawMessage) ([]record.LogitsRow, error) {
	r := parquet.NewGenericReader[stored[ID]](pf)
	defer r.Close()
	buf := make([]stored[ID], pf.NumRows())
	n, err := r.Read(buf)
	if err != nil && n < len(buf) {
		return nil, fmt.Errorf("logits: read: %w", err)
	}
	rows := make([]record.LogitsRow, n)
	for i := range rows {
		rows[i] = fromStored(&buf[i], id(buf[i].ID))
	}
	return rows, nil
}
