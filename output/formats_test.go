package output

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// writeRecord writes answer i (an error record every fifth).
func writeRecord(t *testing.T, out *Outputs, i int) {
	t.Helper()
	id := json.RawMessage(strconv.Itoa(i))
	keep := []json.RawMessage{json.RawMessage(`"u` + strconv.Itoa(i) + `"`)}
	var err error
	if i%5 == 4 {
		err = out.Answers.WriteError(record.ErrorRecord{ID: id, Keep: keep, Pos: record.Position{File: "in.parquet", At: int64(i), Row: true}, Error: "bad " + strconv.Itoa(i)})
	} else {
		err = out.Answers.WriteAnswer(record.AnswerRecord{ID: id, Keep: keep, Question: "q", Answer: "a" + strconv.Itoa(i), Score: 0.5, Start: i, End: i + 1, Windows: 1,
			Answers: []record.Answer{{Answer: "a", Score: 0.5, Start: i, End: i + 1}, {Answer: "b", Score: 0.25}}})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestFormatsResume: each answers format survives a crash between
// checkpoints: the resumed output holds every record once, in order, and
// a compressed file cut at the journaled length is a complete file.
func TestFormatsResume(t *testing.T) {
	for _, name := range []string{"a.jsonl", "a.jsonl.gz", "a.jsonl.zst", "a.parquet"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			opt := Options{Answers: path, Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m"},
				Keep: []string{"url"}, Schema: record.Schema{ID: record.Int, Keep: []record.Kind{record.String}}, TopK: 2}
			out, err := Open(opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 7 {
				writeRecord(t, out, i)
			}
			if err := out.Checkpoint(7); err != nil {
				t.Fatal(err)
			}
			for i := 7; i < 10; i++ {
				writeRecord(t, out, i)
			}
			if err := out.Checkpoint(10); err != nil {
				t.Fatal(err)
			}
			for i := 10; i < 12; i++ {
				writeRecord(t, out, i) // lost: never checkpointed
			}
			if format.Of(path) != format.Parquet {
				// As if flushed before the crash: a tail the resume must cut.
				if err := out.sink.seal(); err != nil {
					t.Fatal(err)
				}
			}
			out.Close()

			opt.Resume = true
			out, err = Open(opt)
			if err != nil {
				t.Fatal(err)
			}
			if out.Skip != 10 {
				t.Fatalf("resumed at %d, want 10", out.Skip)
			}
			for i := 10; i < 15; i++ {
				writeRecord(t, out, i)
			}
			if err := out.Finish(15); err != nil {
				t.Fatal(err)
			}
			out.Close()
			got := readBack(t, path)
			if len(got) != 15 {
				t.Fatalf("%d records after the resume, want 15:\n%s", len(got), strings.Join(got, "\n"))
			}
			for i, rec := range got {
				if !strings.Contains(rec, `"id":`+strconv.Itoa(i)+`,`) || !strings.Contains(rec, `"url":"u`+strconv.Itoa(i)+`"`) {
					t.Errorf("record %d: %s", i, rec)
				}
			}
		})
	}
}

// readBack returns the answers as JSON lines, whatever the format.
func readBack(t *testing.T, path string) []string {
	t.Helper()
	var text []byte
	switch format.Of(path) {
	case format.Parquet:
		return readParquet(t, path)
	case format.Gzip:
		f, _ := os.Open(path)
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if text, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	case format.Zstd:
		f, _ := os.Open(path)
		defer f.Close()
		z, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		if text, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	default:
		text, _ = os.ReadFile(path)
	}
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
}

// readParquet renders every row of an answers folder as JSON with its
// non-null columns, checking the schema on the way.
func readParquet(t *testing.T, dir string) []string {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	var out []string
	for _, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		s := pf.Schema().String()
		for _, want := range []string{"optional int64 id", "optional binary url (STRING)", "optional binary error (STRING)", "optional int64 row", "group answers (LIST)"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%s: schema lacks %q:\n%s", p, want, s)
			}
		}
		rows := make([]parquet.Row, pf.NumRows())
		r := parquet.NewReader(pf)
		n, _ := r.ReadRows(rows)
		for _, row := range rows[:n] {
			var b bytes.Buffer
			b.WriteString("{")
			for _, v := range row {
				if v.IsNull() || v.Column() >= len(pf.Schema().Columns()) {
					continue
				}
				name := strings.Join(pf.Schema().Columns()[v.Column()], ".")
				if strings.HasPrefix(name, "answers.") {
					continue
				}
				switch v.Kind() {
				case parquet.ByteArray:
					q, _ := json.Marshal(string(v.ByteArray()))
					b.WriteString(`"` + name + `":` + string(q) + `,`)
				default:
					b.WriteString(`"` + name + `":` + v.String() + `,`)
				}
			}
			b.WriteString("}")
			out = append(out, b.String())
		}
		r.Close()
		f.Close()
	}
	return out
}
