package input

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

type nestedDoc struct {
	Key  *int64 `parquet:"key,optional"`
	Meta struct {
		Title string  `parquet:"title"`
		Score float64 `parquet:"score"`
	} `parquet:"meta"`
	Body      *string  `parquet:"body,optional"`
	Questions []string `parquet:"questions,list"`
	Flag      bool     `parquet:"flag"`
}

// TestParquetFields: ids from an integer column (their kind follows the
// column), a context under another name, nested fields by dotted path, a
// list of questions, kept fields of several types, nulls.
func TestParquetFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.parquet")
	var rows []nestedDoc
	for i := range 5 {
		var d nestedDoc
		k := int64(100 + i)
		body := "text " + strings.Repeat("x", i)
		d.Key, d.Body = &k, &body
		d.Meta.Title, d.Meta.Score = "t"+string(rune('a'+i)), float64(i)/2
		d.Questions = []string{"q1", "q2"}[:i%3%2+1]
		d.Flag = i%2 == 0
		rows = append(rows, d)
	}
	rows[3].Key, rows[4].Body, rows[2].Questions = nil, nil, nil
	must(t, corpus.WriteParquet(path, rows, 2))
	files := mustFind(t, []string{path})
	opt := record.Options{Fields: record.Fields{ID: "key", Context: "body", Question: "questions", Keep: []string{"meta.title", "meta.score", "flag"}}, Questions: []string{"g"}}
	var err error
	opt.Schema, err = Schema(files, opt, "auto")
	must(t, err)
	if opt.Schema.ID != record.Int || opt.Schema.Keep[0] != record.String || opt.Schema.Keep[1] != record.Float || opt.Schema.Keep[2] != record.Bool {
		t.Fatalf("schema %+v", opt.Schema)
	}
	plan, err := Split(files, shard.Rank{World: 1})
	must(t, err)
	s, err := plan.Open(opt, nil, 0)
	must(t, err)
	docs := readAll(t, s)
	if len(docs) != 5 {
		t.Fatalf("%d documents", len(docs))
	}
	d := docs[1]
	if string(d.ID) != "101" || d.Context != "text x" || strings.Join(d.Questions, ",") != "g,q1,q2" ||
		string(d.Keep[0]) != `"tb"` || string(d.Keep[1]) != "0.5" || string(d.Keep[2]) != "false" || d.Pos != (record.Position{File: "n.parquet", At: 1, Row: true}) {
		t.Errorf("row 1: %+v keep %s", d, d.Keep)
	}
	if strings.Join(docs[2].Questions, ",") != "g" {
		t.Errorf("row 2 (no questions): %q", docs[2].Questions)
	}
	if !errors.Is(docs[3].Err, record.ErrBadID) {
		t.Errorf("row 3 (null id in a run of integer ids): %v", docs[3].Err)
	}
	if !errors.Is(docs[4].Err, record.ErrMissingContext) {
		t.Errorf("row 4 (null context): %v", docs[4].Err)
	}

	opt.Fields.Context = "text"
	_, err = Schema(files, opt, "auto")
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `no column "text"`) || !strings.Contains(err.Error(), "meta.title, meta.score, body") {
		t.Errorf("missing context column: %v", err)
	}
	opt.Fields.Context, opt.Fields.Keep = "body", []string{"meta"}
	if _, err = Schema(files, opt, "auto"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "meta.<field>") {
		t.Errorf("a struct kept whole: %v", err)
	}
}
