package record

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestFieldMapping: ids, contexts and questions found under other names,
// in nested objects (a key holding a dot wins over the path), kept fields
// copied in their kinds, and keys matched as encoding/json matches them.
func TestFieldMapping(t *testing.T) {
	f := Fields{ID: "meta.doc_id", Context: "body.text", Question: "ask", Keep: []string{"url", "meta.year", "tags", "missing"}}
	s := Schema{ID: String, Keep: []Kind{String, Int, JSON, String}}
	tests := []struct {
		name, line string
		id, ctx    string
		qs         []string
		keep       []string
		err        error
	}{
		{"nested", `{"meta": {"doc_id": 7, "year": 1999}, "body": {"text": "hello"}, "ask": "Who?", "url": "u", "tags": ["a", 1]}`,
			`"7"`, "hello", []string{"Who?"}, []string{`"u"`, `1999`, `["a",1]`, `null`}, nil},
		{"dotted key wins over the path", `{"meta.doc_id": "k", "meta": {"doc_id": "p"}, "body.text": "flat", "ask": ["a", "b"]}`,
			`"k"`, "flat", []string{"a", "b"}, []string{`null`, `null`, `null`, `null`}, nil},
		{"case-insensitive, last wins", `{"META": {"DOC_ID": "x"}, "Body": {"Text": "t1"}, "body": {"text": "t2"}, "Ask": "q"}`,
			`"x"`, "t2", []string{"q"}, []string{`null`, `null`, `null`, `null`}, nil},
		{"number kept as a string column", `{"body": {"text": "t"}, "ask": "q", "url": 12}`,
			`"stdin:0"`, "t", []string{"q"}, []string{`"12"`, `null`, `null`, `null`}, nil},
		{"kept field of another type", `{"body": {"text": "t"}, "ask": "q", "meta": {"year": "1999"}}`,
			`"stdin:0"`, "", nil, nil, ErrBadField},
		{"context missing under its name", `{"context": "t", "ask": "q"}`, `"stdin:0"`, "", nil, nil, ErrMissingContext},
		{"default questions are not read", `{"body": {"text": "t"}, "question": "q"}`, `"stdin:0"`, "", nil, nil, ErrNoQuestion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := readAll(t, tt.line+"\n", Options{Fields: f, Schema: s})
			d := docs[0]
			if !errors.Is(d.Err, tt.err) || (tt.err == nil && d.Err != nil) {
				t.Fatalf("Err = %v, want %v", d.Err, tt.err)
			}
			if string(d.ID) != tt.id {
				t.Errorf("id %s, want %s", d.ID, tt.id)
			}
			if tt.err != nil {
				if errors.Is(tt.err, ErrMissingContext) && !strings.Contains(d.Err.Error(), `"body.text"`) {
					t.Errorf("message %q does not name the context field", d.Err)
				}
				return
			}
			var keep []string
			for _, k := range d.Keep {
				keep = append(keep, string(k))
			}
			if d.Context != tt.ctx || strings.Join(d.Questions, "|") != strings.Join(tt.qs, "|") || strings.Join(keep, " ") != strings.Join(tt.keep, " ") {
				t.Errorf("got %q %q keep %v; want %q %q %v", d.Context, d.Questions, keep, tt.ctx, tt.qs, tt.keep)
			}
		})
	}
}

// TestIntegerIDs: a run whose ids are integers keeps them as numbers and
// refuses what is not one (the outputs' id column has one type).
func TestIntegerIDs(t *testing.T) {
	docs := readAll(t, strings.Join([]string{
		`{"id": 17, "context": "c", "question": "q"}`,
		`{"id": "17", "context": "c", "question": "q"}`,
		`{"id": 1.5, "context": "c", "question": "q"}`,
		`{"context": "c", "question": "q"}`,
		`{"id": 99999999999999999999, "context": "c", "question": "q"}`,
	}, "\n"), Options{Schema: Schema{ID: Int}})
	if string(docs[0].ID) != "17" || docs[0].Err != nil {
		t.Errorf("integer id: %s %v", docs[0].ID, docs[0].Err)
	}
	for i, d := range docs[1:] {
		if !errors.Is(d.Err, ErrBadID) || !strings.Contains(d.Err.Error(), "--id-type string") {
			t.Errorf("doc %d: Err = %v, want a bad id that names --id-type", i+1, d.Err)
		}
	}
}

func TestSchemaOf(t *testing.T) {
	f := Fields{Keep: []string{"a", "b", "c", "d", "e", "f"}}
	s, ok := SchemaOf([]byte(` {"id": 3, "a": "x", "b": 2, "c": 2.5, "d": true, "e": {"k": 1}, "f": null}`), f)
	want := []Kind{String, Int, Float, Bool, JSON, String}
	if !ok || s.ID != Int || len(s.Keep) != len(want) {
		t.Fatalf("SchemaOf = %+v, %v", s, ok)
	}
	for i, k := range want {
		if s.Keep[i] != k {
			t.Errorf("kept field %s: %v, want %v", f.Keep[i], s.Keep[i], k)
		}
	}
	for _, line := range []string{`{"id": "3"}`, `{"id": 3.0}`, `{}`, `not json`} {
		if s, _ := SchemaOf([]byte(line), f); s.ID != String {
			t.Errorf("SchemaOf(%s).ID = %v, want string", line, s.ID)
		}
	}
}

// TestKeptFieldsWritten: kept fields follow the id, in every record.
func TestKeptFieldsWritten(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b, "url", "n")
	keep := []json.RawMessage{json.RawMessage(`"u"`), json.RawMessage(`3`)}
	if err := w.WriteAnswer(AnswerRecord{ID: json.RawMessage(`"a"`), Keep: keep, Question: "q", Windows: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteError(ErrorRecord{ID: json.RawMessage(`"b"`), Pos: Position{File: "f", At: 9}, Error: "e"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a","url":"u","n":3,"question":"q","answer":"","score":0,"start":0,"end":0,"span_logit":0,"null_logit":0,"windows":1}` + "\n" +
		`{"id":"b","url":null,"n":null,"file":"f","offset":9,"error":"e"}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
