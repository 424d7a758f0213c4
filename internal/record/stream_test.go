package record

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// readAll drains a Stream, failing the test on an I/O error.
func readAll(t *testing.T, input string, opt Options) []Document {
	t.Helper()
	r := NewStream(strings.NewReader(input), opt)
	var docs []Document
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		docs = append(docs, d)
	}
}

func TestStreamBadLines(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    error
		wantID  string // "" means nil
		message string // a fragment the user needs to see
	}{
		{"malformed", `{"context": "x", "question": "q"`, ErrMalformedJSON, "", "at byte"},
		{"not an object", `["context"]`, ErrMalformedJSON, "", "JSON object, found an array"},
		{"bare string", `"hello"`, ErrMalformedJSON, "", "found a string"},
		{"null record", `null`, ErrMalformedJSON, "", "found null"},
		{"missing context", `{"id": 1, "question": "q"}`, ErrMissingContext, `"1"`, `"context"`},
		{"empty context", `{"id": "a", "context": "", "question": "q"}`, ErrEmptyContext, `"a"`, "no text"},
		{"blank context", `{"context": " \n\t ", "question": "q"}`, ErrEmptyContext, `"stdin:0"`, "no text"},
		{"context number", `{"context": 5, "question": "q"}`, ErrContextNotString, `"stdin:0"`, "found a number"},
		{"context array", `{"context": ["a"], "question": "q"}`, ErrContextNotString, `"stdin:0"`, "found an array"},
		{"context null", `{"context": null, "question": "q"}`, ErrContextNotString, `"stdin:0"`, "found null"},
		{"invalid utf8 in context", "{\"id\": 7, \"context\": \"a\xffb\", \"question\": \"q\"}", ErrInvalidUTF8, `"7"`, "byte 24 "},
		{"invalid utf8 and malformed", "{\"context\": \"\xff", ErrInvalidUTF8, "", "UTF-8"},
		{"invalid utf8 in id", "{\"id\": \"\xff\", \"context\": \"c\", \"question\": \"q\"}", ErrInvalidUTF8, "", "UTF-8"},
		{"no question", `{"context": "c"}`, ErrNoQuestion, `"stdin:0"`, "no global questions"},
		{"empty questions array", `{"context": "c", "questions": []}`, ErrNoQuestion, `"stdin:0"`, ""},
		{"id object", `{"id": {"a": 1}, "context": "c", "question": "q"}`, ErrBadID, "", "found an object"},
		{"id null", `{"id": null, "context": "c", "question": "q"}`, ErrBadID, "", "found null"},
		{"id bool", `{"id": true, "context": "c", "question": "q"}`, ErrBadID, "", "found a boolean"},
		{"question number", `{"context": "c", "question": 3}`, ErrBadQuestion, `"stdin:0"`, `"question" must be a string`},
		{"questions not array", `{"context": "c", "questions": "q"}`, ErrBadQuestion, `"stdin:0"`, "array of strings"},
		{"questions element", `{"context": "c", "questions": ["a", 2]}`, ErrBadQuestion, `"stdin:0"`, `"questions"[1] must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := readAll(t, tt.line+"\n", Options{})
			if len(docs) != 1 {
				t.Fatalf("got %d documents, want 1", len(docs))
			}
			d := docs[0]
			if !errors.Is(d.Err, tt.want) {
				t.Fatalf("Err = %v, want %v", d.Err, tt.want)
			}
			if d.Seq != 0 || d.Pos != (Position{File: "stdin"}) {
				t.Errorf("Seq, Pos = %d, %v; want 0, stdin offset 0", d.Seq, d.Pos)
			}
			if string(d.ID) != tt.wantID {
				t.Errorf("ID = %s, want %q", d.ID, tt.wantID)
			}
			if msg := d.Err.Error(); !strings.Contains(msg, tt.message) {
				t.Errorf("message %q lacks %q", msg, tt.message)
			}
			if d.Context != "" || d.Questions != nil {
				t.Errorf("bad line carries content: %q %q", d.Context, d.Questions)
			}
		})
	}
}

func TestStreamGoodLines(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		global  []string
		id      string
		context string
		qs      []string
	}{
		{"string id", `{"id": "a-1", "context": "c", "question": "q"}`, nil, `"a-1"`, "c", []string{"q"}},
		{"escaped id kept as written", `{"id": "\u00e9<&>", "context": "c", "question": "q"}`, nil, `"\u00e9<&>"`, "c", []string{"q"}},
		{"number id as a string", `{"id": 17, "context": "c", "question": "q"}`, nil, `"17"`, "c", []string{"q"}},
		{"big number id", `{"id": 12345678901234567890123, "context": "c", "question": "q"}`, nil, `"12345678901234567890123"`, "c", []string{"q"}},
		{"float id", `{"id": -1.5e3, "context": "c", "question": "q"}`, nil, `"-1.5e3"`, "c", []string{"q"}},
		{"missing id", `{"context": "c", "question": "q"}`, nil, `"stdin:0"`, "c", []string{"q"}},
		{"escapes decoded", `{"context": "a\"b\\c\nd \u00fc \ud83d\ude00", "question": "q"}`, nil, `"stdin:0"`, "a\"b\\c\nd ü 😀", []string{"q"}},
		{"context kept untrimmed", `{"context": "  c  ", "question": "q"}`, nil, `"stdin:0"`, "  c  ", []string{"q"}},
		{"unknown fields ignored", `{"context": "c", "question": "q", "title": {"x": [1]}, "n": null}`, nil, `"stdin:0"`, "c", []string{"q"}},
		{"globals only", `{"context": "c"}`, []string{"g1", "g2"}, `"stdin:0"`, "c", []string{"g1", "g2"}},
		{"globals first, dedup, trimmed", `{"context": "c", "question": " g2 ", "questions": ["a", "g1", "a", "b"]}`,
			[]string{"g1", "g2", " g1", ""}, `"stdin:0"`, "c", []string{"g1", "g2", "a", "b"}},
		{"question then questions", `{"context": "c", "questions": ["b", "a"], "question": "a"}`, nil, `"stdin:0"`, "c", []string{"a", "b"}},
		{"leading whitespace", "  \t{\"context\": \"c\", \"question\": \"q\"}  ", nil, `"stdin:0"`, "c", []string{"q"}},
		// An empty question is kept: it gets an error record of its own,
		// and the document's other questions are answered.
		{"question empty", `{"context": "c", "question": "  "}`, nil, `"stdin:0"`, "c", []string{""}},
		{"questions empty element", `{"context": "c", "questions": ["a", "", " "]}`, []string{"g"}, `"stdin:0"`, "c", []string{"g", "a", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := readAll(t, tt.line+"\n", Options{Questions: tt.global})
			if len(docs) != 1 {
				t.Fatalf("got %d documents, want 1", len(docs))
			}
			d := docs[0]
			if d.Err != nil {
				t.Fatalf("Err = %v", d.Err)
			}
			if string(d.ID) != tt.id || d.Context != tt.context || strings.Join(d.Questions, "|") != strings.Join(tt.qs, "|") {
				t.Errorf("got id %s context %q questions %q; want %s %q %q", d.ID, d.Context, d.Questions, tt.id, tt.context, tt.qs)
			}
		})
	}
}

// TestStreamQuestionsNotShared guards against handing every document the
// same backing array of global questions, which a caller appending to one
// document's list would corrupt for the others.
func TestStreamQuestionsNotShared(t *testing.T) {
	docs := readAll(t, "{\"context\":\"c\"}\n{\"context\":\"c\"}\n", Options{Questions: []string{"g"}})
	docs[0].Questions[0] = "changed"
	if docs[1].Questions[0] != "g" {
		t.Fatalf("second document's questions changed to %q", docs[1].Questions)
	}
}

func TestStreamLineStructure(t *testing.T) {
	good := `{"context": "c", "question": "q"}`
	tests := []struct {
		name  string
		input string
		lines []int64 // byte offset of each document in order; Seq is the index
		bad   []bool
	}{
		{"mixed with blanks", "\n" + good + "\n  \n{bad\n\t\n" + good + "\n\n", []int64{1, 38, 45}, []bool{false, true, false}},
		{"crlf", good + "\r\n\r\n" + good + "\r\n", []int64{0, 37}, []bool{false, false}},
		{"no final newline", good + "\n" + good, []int64{0, 34}, []bool{false, false}},
		{"bom", "\xEF\xBB\xBF" + good + "\n" + good + "\n", []int64{0, 37}, []bool{false, false}},
		{"bom then blank", "\xEF\xBB\xBF\n" + good, []int64{4}, []bool{false}},
		{"bom only mid-file is an error", good + "\n\xEF\xBB\xBF" + good + "\n", []int64{0, 34}, []bool{false, true}},
		{"empty input", "", nil, nil},
		{"only blanks", "\n \r\n\t", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := readAll(t, tt.input, Options{})
			if len(docs) != len(tt.lines) {
				t.Fatalf("got %d documents, want %d: %+v", len(docs), len(tt.lines), docs)
			}
			for i, d := range docs {
				if d.Seq != int64(i) || d.Pos.At != tt.lines[i] || (d.Err != nil) != tt.bad[i] {
					t.Errorf("doc %d: Seq %d at %d Err %v; want Seq %d at %d bad %v",
						i, d.Seq, d.Pos.At, d.Err, i, tt.lines[i], tt.bad[i])
				}
				if d.Err == nil && d.Context != "c" {
					t.Errorf("doc %d: context %q (line ending or BOM leaked in?)", i, d.Context)
				}
			}
		})
	}
}

// errReader fails after its data, as a broken disk or pipe would.
type errReader struct {
	data string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestStreamIOError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewStream(&errReader{data: "{\"context\":\"c\",\"question\":\"q\"}\n{\"cont", err: boom}, Options{})
	if d, err := r.Next(); err != nil || d.Err != nil {
		t.Fatalf("first line: %v, %v", err, d.Err)
	}
	_, err := r.Next()
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "offset 37") {
		t.Fatalf("Next = %v, want the I/O error at offset 37", err)
	}
	if _, again := r.Next(); !errors.Is(again, boom) {
		t.Fatalf("second Next after failure = %v, want the same error", again)
	}
}

// growing is a text still being written: each call of more appends the
// next chunk, until none is left.
type growing struct {
	buf    bytes.Buffer
	chunks []string
	asked  int
}

func (g *growing) Read(p []byte) (int, error) { return g.buf.Read(p) }

func (g *growing) more() bool {
	g.asked++
	if len(g.chunks) == 0 {
		return false
	}
	g.buf.WriteString(g.chunks[0])
	g.chunks = g.chunks[1:]
	return true
}

// TestStreamReadsOnWhileTheTextGrows: with Options.More, the end of the
// text is where More says nothing more came: lines appended after the
// end was first reached are read, and a last line whose end arrives
// later is one document, not a malformed one cut at the end.
func TestStreamReadsOnWhileTheTextGrows(t *testing.T) {
	g := &growing{chunks: []string{`{"id": "b", "context": "Bo `, "founded it.\"}\n", `{"id": "c", "context": "Cy founded it."}` + "\n"}}
	g.buf.WriteString(`{"id": "a", "context": "Ada founded it."}` + "\n")
	s := NewStream(g, Options{Questions: []string{"Who?"}, More: g.more})
	var ids []string
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || d.Err != nil {
			t.Fatalf("document %d: %v, %v", len(ids), err, d.Err)
		}
		ids = append(ids, string(d.ID))
	}
	if want := []string{`"a"`, `"b"`, `"c"`}; !slices.Equal(ids, want) {
		t.Errorf("documents %v, want %v", ids, want)
	}
	if g.asked != 4 {
		t.Errorf("More asked %d times, want 4 (at each end reached)", g.asked)
	}
}
