package record

import (
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetColumnsAreRecordColumns: the Parquet answers' columns
// (ParquetRows) are
// the id, the kept fields, then AnswerColumns in order (the list
// --keep-fields is checked against), the answers list only with top-k
// above 1.
func TestParquetColumnsAreRecordColumns(t *testing.T) {
	for _, topK := range []int{1, 3} {
		keep, schema := []string{"url", "meta.lang"}, Schema{ID: Int, Keep: []Kind{String, JSON}}
		s := parquet.SchemaOf(reflect.New(NewParquetRows(keep, schema, topK).Type()).Interface())
		var got []string
		for _, f := range s.Fields() {
			got = append(got, f.Name())
		}
		want := append([]string{IDColumn, "url", "meta.lang"}, AnswerColumns...)
		if topK == 1 {
			want = slices.DeleteFunc(want, func(c string) bool { return c == "answers" })
		}
		if !slices.Equal(got, want) {
			t.Errorf("top-k %d: columns %v, want %v", topK, got, want)
		}
	}
}
