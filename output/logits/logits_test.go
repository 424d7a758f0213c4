package logits

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
)

// genRows builds windows of varied length, including zero-token and
// one-token windows, so that list boundaries are exercised.
func genRows(n int) []record.LogitsRow {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]record.LogitsRow, n)
	for i := range rows {
		var l int
		switch i % 7 {
		case 0:
			l = 0
		case 1:
			l = 1
		default:
			l = rng.IntN(384) + 2
		}
		r := record.LogitsRow{
			Pos:           record.Position{File: "docs.jsonl", At: int64(i / 3 * 100)},
			ID:            json.RawMessage([]string{`"doc-ü"`, `"17"`, `"a\"b"`}[i%3]),
			QuestionIndex: int32(i % 2),
			Question:      []string{"Who?", "Wann war das – genau?"}[i%2],
			Window:        int32(i % 3),
			InputIDs:      make([]int32, l),
			SequenceIDs:   make([]int8, l),
			WordIDs:       make([]int32, l),
			OffsetStart:   make([]int32, l),
			OffsetEnd:     make([]int32, l),
			StartLogits:   make([]float32, l),
			EndLogits:     make([]float32, l),
		}
		for j := 0; j < l; j++ {
			r.InputIDs[j] = rng.Int32N(30522)
			r.SequenceIDs[j] = int8(rng.IntN(3) - 1)
			r.WordIDs[j] = rng.Int32N(200) - 1
			r.OffsetStart[j] = rng.Int32N(5000)
			r.OffsetEnd[j] = r.OffsetStart[j] + rng.Int32N(12)
			r.StartLogits[j] = rng.Float32()*20 - 10
			r.EndLogits[j] = rng.Float32()*20 - 10
		}
		if l > 2 {
			r.StartLogits[l-1] = float32(math.Inf(-1)) // masked positions survive
		}
		rows[i] = r
	}
	return rows
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	want := genRows(500)

	w, err := create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Several Write calls of uneven size, as the scheduler will make them.
	for _, chunk := range [][2]int{{0, 1}, {1, 200}, {200, 201}, {201, 500}} {
		if err := w.Write(want[chunk[0]:chunk[1]]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("final file exists before Close: %v", err)
	}
	if _, err := os.Stat(path + partfolder.TempSuffix); err != nil {
		t.Fatalf("temporary file missing while writing: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + partfolder.TempSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file left after Close: %v", err)
	}

	got, err := readAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(normalize(got[i]), normalize(want[i])) {
			t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// normalize maps nil and empty lists to the same value: Parquet has no way
// to tell them apart and neither do the readers of this file.
func normalize(r record.LogitsRow) record.LogitsRow {
	if len(r.InputIDs) == 0 {
		r.InputIDs, r.SequenceIDs, r.WordIDs = nil, nil, nil
		r.OffsetStart, r.OffsetEnd, r.StartLogits, r.EndLogits = nil, nil, nil, nil
	}
	return r
}

func TestSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	w, err := create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(genRows(3)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, field := range pf.Schema().Fields() {
		names = append(names, field.Name())
	}
	wantNames := []string{"id", "file", "offset", "row", "question_index", "question", "window", "input_ids",
		"sequence_ids", "word_ids", "offset_start", "offset_end", "start_logits", "end_logits"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("columns = %v, want %v", names, wantNames)
	}
	// record.LogitsColumns is what --keep-fields is checked against: it
	// must be these columns, or a kept field could take one's name.
	if !reflect.DeepEqual(names, record.LogitsColumns) {
		t.Errorf("columns = %v, but record.LogitsColumns = %v", names, record.LogitsColumns)
	}
	// pyarrow and pandas only turn a column into arrays when it is the
	// standard three-level LIST: group (LIST) { repeated group list { element } }.
	s := pf.Schema().String()
	for _, list := range wantNames[7:] {
		if !strings.Contains(s, "required group "+list+" (LIST) {\n\t\trepeated group list {\n\t\t\trequired ") {
			t.Errorf("column %s is not a standard LIST in schema:\n%s", list, s)
		}
	}
	if !strings.Contains(s, "(INT(8,true))") {
		t.Errorf("sequence_ids should be annotated int8:\n%s", s)
	}
	if v, ok := pf.Lookup(FormatKey); !ok || v != FormatVersion {
		t.Errorf("metadata %s = %q, %v; want %q", FormatKey, v, ok, FormatVersion)
	}
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec.String() != "ZSTD" {
				t.Errorf("column %v compressed with %v, want ZSTD", c.MetaData.PathInSchema, c.MetaData.Codec)
			}
		}
	}
}

func TestRowGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	w, err := create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Tiny rows so that this stays cheap while crossing a group boundary.
	rows := make([]record.LogitsRow, RowsPerGroup+10)
	for i := range rows {
		rows[i].ID, rows[i].Pos = json.RawMessage(`"x"`), record.Position{File: "f", At: int64(i), Row: true}
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 2 {
		t.Errorf("%d row groups, want 2", n)
	}
	if n := pf.NumRows(); n != int64(len(rows)) {
		t.Errorf("%d rows, want %d", n, len(rows))
	}
}

func TestLengthMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	w, err := create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	bad := genRows(3)[2] // a long window
	bad.EndLogits = bad.EndLogits[:len(bad.EndLogits)-1]
	if err := w.Write([]record.LogitsRow{bad}); !errors.Is(err, ErrLengthMismatch) {
		t.Fatalf("Write = %v, want ErrLengthMismatch", err)
	}
}

func TestAbort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logits.parquet")
	w, err := create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(genRows(10)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + partfolder.TempSuffix} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after Abort: %v", p, err)
		}
	}
	if err := w.Write(genRows(1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Abort = %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("Close after Abort = %v, want ErrClosed", err)
	}
}

func TestCreateError(t *testing.T) {
	_, err := create(filepath.Join(t.TempDir(), "missing-dir", "logits.parquet"), Options{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Create in a missing directory = %v, want ErrNotExist", err)
	}
}

func TestReadAllNotParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(path, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(path); err == nil {
		t.Fatal("ReadAll of a non-Parquet file succeeded")
	}
}
