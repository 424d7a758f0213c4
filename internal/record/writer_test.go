package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestWriterGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteAnswer(AnswerRecord{ID: json.RawMessage(`"doc-1"`), Question: "Who wrote it?",
		Answer: "Jane <Doe> & co", Score: 0.8731298446655273, Start: 10, End: 25, SpanLogit: 12.718750476837158, NullLogit: -3.25, Windows: 1}))
	must(w.WriteAnswer(AnswerRecord{ID: json.RawMessage(`17`), Question: "Wann?", QuestionID: "56ddde6b9a695914005b9628",
		Answer: "", Score: 0, Start: 0, End: 0, SpanLogit: 4.5, NullLogit: 4.5, Windows: 3}))
	must(w.WriteAnswer(AnswerRecord{ID: json.RawMessage(` { "a" : [1, 2] } `), Question: "q \"quoted\"\n\ttab",
		Answer: "line\u2028sep 😀 é", Score: 1e-7, Start: 2, End: 9, SpanLogit: -1e-7, NullLogit: -20000.5, Windows: 2,
		Answers: []Answer{
			{Answer: "line\u2028sep 😀 é", Score: 1e-7, Start: 2, End: 9, SpanLogit: -1e-7},
			{Answer: "x\x01y", Score: 3.5e-9, Start: 0, End: 3, SpanLogit: 0.5},
			{Answer: "big", Score: 1e21, Start: 5, End: 8, SpanLogit: -3},
		}}))
	must(w.WriteError(ErrorRecord{ID: json.RawMessage(`"doc-4"`), Pos: Position{File: "docs.jsonl", At: 412},
		Error: `empty context: "context" has no text to answer from`}))
	must(w.WriteError(ErrorRecord{Pos: Position{File: "docs.jsonl", At: 530}, Error: "malformed JSON: unexpected end of JSON input"}))
	must(w.WriteError(ErrorRecord{ID: json.RawMessage(`6`), Pos: Position{File: "part-0.parquet", At: 17, Row: true}, Question: "Who?", QuestionID: "q-6", Error: "window 2: model failed"}))
	if buf.Len() != 0 {
		t.Error("records reached the output before Flush")
	}
	must(w.Flush())

	out := buf.Bytes()
	for i, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not valid JSON: %s", i+1, line)
		}
	}
	golden(t, "answers.golden.jsonl", out)
}

// TestAppendFloatMatchesEncodingJSON checks the hand-written float format
// against encoding/json over edge cases and many random scores.
func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678901234.0,
		math.SmallestNonzeroFloat64, math.MaxFloat64, 0.1 + 0.2, 1.0 / 3, float64(float32(0.87312984))}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		vals = append(vals, rng.Float64(), math.Exp(rng.NormFloat64()*30), -rng.ExpFloat64()*1e-9)
	}
	for _, v := range vals {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendFloat(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendFloat(%v) = %s, %v; encoding/json gives %s", v, got, err, want)
		}
	}
}

// TestAppendStringMatchesEncodingJSON checks escaping against encoding/json
// with HTML escaping off, including every ASCII byte and invalid UTF-8.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	var all []byte
	for c := range 128 {
		all = append(all, byte(c))
	}
	inputs := []string{"", "plain", string(all), "<a href=\"x\">&amp;</a>", "\u2028\u2029\u2027",
		"é😀中", "bad \xff byte", "cut \xe2\x82", "\xed\xa0\x80 surrogate"}
	for _, s := range inputs {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestWriterRejects(t *testing.T) {
	tests := []struct {
		name string
		rec  AnswerRecord
		want error
	}{
		{"NaN score", AnswerRecord{ID: json.RawMessage(`1`), Score: math.NaN()}, ErrNotFinite},
		{"infinite candidate", AnswerRecord{ID: json.RawMessage(`1`), Answers: []Answer{{Score: math.Inf(1)}}}, ErrNotFinite},
		{"broken id", AnswerRecord{ID: json.RawMessage(`"abc`)}, ErrBadID},
		{"two values as id", AnswerRecord{ID: json.RawMessage(`1 2`)}, ErrBadID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			if err := w.WriteAnswer(tt.rec); !errors.Is(err, tt.want) {
				t.Fatalf("WriteAnswer = %v, want %v", err, tt.want)
			}
			// A rejected record must leave nothing half-written behind.
			if err := w.Flush(); err != nil || buf.Len() != 0 {
				t.Fatalf("after a rejected record: Flush %v, output %q", err, buf.String())
			}
		})
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriterErrorIsSticky(t *testing.T) {
	boom := errors.New("disk full")
	w := NewWriter(failWriter{boom})
	if err := w.WriteError(ErrorRecord{Pos: Position{File: "f"}, Error: "x"}); err != nil {
		t.Fatalf("buffered write failed early: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush = %v, want %v", err, boom)
	}
	if err := w.WriteAnswer(AnswerRecord{ID: json.RawMessage(`1`)}); !errors.Is(err, boom) {
		t.Fatalf("WriteAnswer after failure = %v, want %v", err, boom)
	}
}
