package record_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"qa-shard/internal/record"
)

// sentinels are the errors a bad line may carry.
var sentinels = []error{record.ErrMalformedJSON, record.ErrMissingContext, record.ErrEmptyContext, record.ErrContextNotString,
	record.ErrInvalidUTF8, record.ErrLineTooLong, record.ErrNoQuestion, record.ErrBadID, record.ErrBadQuestion, record.ErrBadField}

// line is one input line as the JSONL format defines it, found here
// without the reader's code: split on "\n", one "\r" before it dropped,
// a UTF-8 BOM at the start of the input ignored; at is the offset of its
// first byte in the input (a BOM belongs to the first line).
type line struct {
	at   int64
	text []byte
}

func nonBlankLines(data []byte) []line {
	bom := 0
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		bom = 3
	}
	parts := bytes.Split(data[bom:], []byte("\n"))
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1] // the input ended with "\n"
	}
	var out []line
	at := int64(0)
	for i, p := range parts {
		next := at + int64(len(p)) + 1
		if i == 0 {
			next += int64(bom)
		}
		p = bytes.TrimSuffix(p, []byte("\r"))
		if len(bytes.Trim(p, " \t\r\n\v\f")) > 0 {
			out = append(out, line{at, p})
		}
		at = next
	}
	return out
}

func readAll(t *testing.T, data []byte, opt record.Options) []record.Document {
	r := record.NewStream(bytes.NewReader(data), opt)
	var docs []record.Document
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("Next failed on an in-memory input: %v", err)
		}
		docs = append(docs, d)
	}
}

// FuzzStream: whatever the bytes (malformed UTF-8, huge numbers, deep
// nesting, duplicate keys, NUL bytes, BOMs, CRLF, no final newline, lines
// over the limit), the reader does not panic, every non-blank line yields
// exactly one document, in order, with Seq 0, 1, 2, ... and the offset
// of its line; a bad line carries one of the package's sentinels, a line that
// is not valid JSON or UTF-8 or is too long is bad; a good document has
// text and questions, and its canonical JSON reads back as the same
// document.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		`{"id": 1, "context": "Ada founded the company."}` + "\n",
		"\xEF\xBB\xBF" + `{"id": "a", "context": "x", "question": "q"}` + "\r\n" + `{"context": "y"}`,
		`{"id": 1e999999, "context": "huge"}` + "\n" + `{"id": 123456789012345678901234567890, "context": "big"}`,
		`{"id": 1, "context": "a", "x": ` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "}\n",
		`{"id": 1, "context": "a", "x": ` + strings.Repeat(`{"a":`, 11000) + "1" + strings.Repeat("}", 11000) + "}\n",
		`{"id": 1, "id": 2, "context": "a", "context": "b", "Context": "c", "questions": ["q", "q", ""]}`,
		"{\"id\": 1, \"context\": \"nul\x00byte\"}\n{\"id\": 2, \"context\": \"escaped \\u0000 nul\"}\n",
		"{\"id\": \"\xff\", \"context\": \"bad utf-8 \xc3\x28\"}\n",
		"\n \t\v\f\r\n{\"context\": \"after blanks\"}\n\n\n",
		"\xEF\xBB\xBF\xEF\xBB\xBF{\"context\": \"two BOMs\"}",
		`{"id": [1], "context": 5}` + "\n" + `[1, 2]` + "\n" + `"just a string"` + "\n" + `{"context": "  "}`,
		`{"id": null, "context": "\ud800 lone surrogate", "question": 7}`,
		`{"id": -0.5e-7, "context": "x", "questions": "not an array"}`,
		strings.Repeat("x", 3000) + "\n" + `{"context": "after a long line"}`,
	} {
		f.Add([]byte(s), uint16(60000), true, false)
		f.Add([]byte(s), uint16(1000), false, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint16, global, intIDs bool) {
		opt := record.Options{MaxLineBytes: 64 + int(max)}
		if global {
			opt.Questions = []string{"Who founded it?"}
		}
		if intIDs {
			opt.Schema.ID = record.Int
		}
		docs := readAll(t, data, opt)
		lines := nonBlankLines(data)
		if len(docs) != len(lines) {
			t.Fatalf("%d documents from %d non-blank lines", len(docs), len(lines))
		}
		for i, d := range docs {
			l := lines[i]
			if d.Seq != int64(i) || d.Pos.At != l.at || d.Pos.Row {
				t.Fatalf("document %d: Seq %d at %v, want Seq %d offset %d", i, d.Seq, d.Pos, i, l.at)
			}
			tooLong := len(l.text) > opt.MaxLineBytes
			if d.Err != nil {
				if !isSentinel(d.Err) {
					t.Fatalf("line %d: error %v wraps none of the sentinels", l.at, d.Err)
				}
				if errors.Is(d.Err, record.ErrLineTooLong) != tooLong {
					t.Fatalf("line %d (%d bytes, max %d): error %v", l.at, len(l.text), opt.MaxLineBytes, d.Err)
				}
				continue
			}
			switch {
			case tooLong:
				t.Fatalf("line %d of %d bytes accepted (max %d)", l.at, len(l.text), opt.MaxLineBytes)
			case !utf8.Valid(l.text) || !json.Valid(l.text):
				t.Fatalf("line %d is not valid UTF-8 JSON, yet accepted: %q", l.at, l.text)
			case strings.TrimSpace(d.Context) == "" || len(d.Questions) == 0 || !json.Valid(d.ID):
				t.Fatalf("line %d accepted without text, questions or a valid id: %+v", l.at, d)
			}
			roundTrip(t, d, opt)
		}
	})
}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// roundTrip writes a good document as a canonical record and reads it back.
func roundTrip(t *testing.T, d record.Document, opt record.Options) {
	t.Helper()
	ctx, _ := json.Marshal(d.Context)
	qs, _ := json.Marshal(d.Questions)
	rec := `{"id":` + string(d.ID) + `,"context":` + string(ctx) + `,"questions":` + string(qs) + "}\n"
	opt.MaxLineBytes = len(rec) + 1
	back := readAll(t, []byte(rec), opt)
	if len(back) != 1 || back[0].Err != nil || back[0].Context != d.Context || !bytes.Equal(back[0].ID, d.ID) || !slices.Equal(back[0].Questions, d.Questions) {
		t.Fatalf("%v does not round-trip:\n got %+v\nwant %+v\nfrom %s", d.Pos, back, d, rec)
	}
}
