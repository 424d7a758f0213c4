package output

import (
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// TestParquetColumnsAreRecordColumns: the Parquet answers' columns are
// the id, the kept fields, then record.AnswerColumns in order (the list
// --keep-fields is checked against), the answers list only with top-k
// above 1.
func TestParquetColumnsAreRecordColumns(t *testing.T) {
	for _, topK := range []int{1, 3} {
		o := Options{Keep: []string{"url", "meta.lang"}, Schema: record.Schema{ID: record.Int, Keep: []record.Kind{record.String, record.JSON}}, TopK: topK}
		s := parquet.SchemaOf(reflect.New(rowType(o)).Interface())
		var got []string
		for _, f := range s.Fields() {
			got = append(got, f.Name())
		}
		want := append([]string{record.IDColumn, "url", "meta.lang"}, record.AnswerColumns...)
		if topK == 1 {
			want = slices.DeleteFunc(want, func(c string) bool { return c == "answers" })
		}
		if !slices.Equal(got, want) {
			t.Errorf("top-k %d: columns %v, want %v", topK, got, want)
		}
	}
}
