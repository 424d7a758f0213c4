package logits

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// TestTypedIDAndKeptFields: an integer id is stored as INT64 (the answers
// write it as a JSON number, so the two join without a cast), and kept
// fields become typed columns after the position.
func TestTypedIDAndKeptFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	opt := Options{ID: record.Int, Keep: []string{"url", "year", "meta.x"}, KeepKinds: []record.Kind{record.String, record.Int, record.JSON}}
	w, err := create(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	rows := genRows(4)
	for i := range rows {
		rows[i].ID = json.RawMessage(strconv.Itoa(1000 + i))
		rows[i].Keep = []json.RawMessage{json.RawMessage(`"https://x/` + strconv.Itoa(i) + `"`), json.RawMessage(`1999`), json.RawMessage(`{"a":[1]}`)}
	}
	rows[3].Keep[1] = json.RawMessage("null")
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || string(got[2].ID) != "1002" || got[2].Pos != rows[2].Pos {
		t.Fatalf("read back %d rows, row 2 id %s pos %v", len(got), got[2].ID, got[2].Pos)
	}
	f, _ := os.Open(path)
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	s := pf.Schema().String()
	for _, want := range []string{"required int64 id", "optional binary url (STRING)", "optional int64 year", "optional binary meta.x (STRING)"} {
		if !strings.Contains(s, want) {
			t.Errorf("schema lacks %q:\n%s", want, s)
		}
	}
	vals := make([]parquet.Row, 4)
	rr := pf.RowGroups()[0].Rows()
	defer rr.Close()
	if n, _ := rr.ReadRows(vals); n != 4 {
		t.Fatalf("read %d rows", n)
	}
	year, _ := pf.Schema().Lookup("year")
	for i, want := range []string{"1999", "1999", "1999", "null"} {
		var v parquet.Value
		for _, x := range vals[i] {
			if x.Column() == year.ColumnIndex {
				v = x
			}
		}
		if got := map[bool]string{true: "null", false: strconv.FormatInt(v.Int64(), 10)}[v.IsNull()]; got != want {
			t.Errorf("row %d year = %s, want %s", i, got, want)
		}
	}
}
