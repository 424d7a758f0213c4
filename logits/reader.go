package logits

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// ReadAll loads every row of a logits file into memory, for tests and small
// tools; large files are better read column by column with pyarrow or polars.
func ReadAll(path string) ([]Row, error) {
	rows, err := parquet.ReadFile[Row](path)
	if err != nil {
		return nil, fmt.Errorf("logits: read %s: %w", path, err)
	}
	return rows, nil
}
