package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestReadWhatIsWritten: the records Writer writes as JSON lines and
// ParquetRows lays out as Parquet rows read back (ReadLine, ReadRow) as
// the same values, answers and errors, integer ids as text; a JSON line
// that is no record is ErrNotARecord.
func TestReadWhatIsWritten(t *testing.T) {
	answer := AnswerRecord{ID: json.RawMessage(`7`), Keep: []json.RawMessage{json.RawMessage(`"u"`)}, Question: "Who?", QuestionID: "q1",
		Answer: "Ada", Score: 0.75, Start: 3, End: 6, SpanLogit: 9.5, NullLogit: -2.25, Windows: 2,
		Answers: []Answer{{Answer: "Ada", Score: 0.75, Start: 3, End: 6, SpanLogit: 9.5}, {Answer: "Ada L", Score: 0.1, Start: 3, End: 8, SpanLogit: 1}}}
	failed := ErrorRecord{ID: json.RawMessage(`8`), Keep: []json.RawMessage{json.RawMessage(`null`)}, Pos: Position{File: "a.jsonl", At: 40},
		Question: "Who?", Error: "empty context"}
	span, null := 9.5, -2.25
	want := []Read{
		{ID: "7", Question: "Who?", QuestionID: "q1", Answer: "Ada", Score: 0.75, Start: 3, End: 6, SpanLogit: &span, NullLogit: &null},
		{ID: "8", Question: "Who?", IsError: true, Error: "empty context"},
	}

	var text bytes.Buffer
	w := NewWriter(&text, "url")
	if err := w.WriteAnswer(answer); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteError(failed); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []Read
	sc := bufio.NewScanner(&text)
	for sc.Scan() {
		r, err := ReadLine(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		got = append(got, r)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON lines read back as\n%+v\nwant\n%+v", got, want)
	}
	if _, err := ReadLine([]byte(`{"id": 1, "context": "a document"}`)); !errors.Is(err, ErrNotARecord) {
		t.Errorf("a document read as a record: %v", err)
	}

	rows := NewParquetRows([]string{"url"}, Schema{ID: Int, Keep: []Kind{String}}, 2)
	var file bytes.Buffer
	pw := parquet.NewWriter(&file, parquet.SchemaOf(reflect.New(rows.Type()).Interface()))
	a, err := rows.Answer(answer)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rows.Error(failed)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []any{a, e} {
		if err := pw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	r := parquet.NewGenericReader[map[string]any](pf, pf.Schema())
	maps := []map[string]any{{}, {}}
	if n, err := r.Read(maps); n != 2 || (err != nil && !errors.Is(err, io.EOF)) {
		t.Fatalf("read %d rows: %v", n, err)
	}
	got = []Read{ReadRow(maps[0]), ReadRow(maps[1])}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parquet rows read back as\n%+v\nwant\n%+v", got, want)
	}
}
