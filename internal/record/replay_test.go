package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestReplayRoundTrip: answers replayed through a Writer come out byte for
// byte as written: kept fields, top-k lists, error records by offset and
// by row, with and without a question, null ids and kept values, escapes,
// U+2028, scores in exponent form.
func TestReplayRoundTrip(t *testing.T) {
	keep := []string{"url", "meta"}
	var want bytes.Buffer
	w := NewWriter(&want, keep...)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	records := []func() error{
		func() error {
			return w.WriteAnswer(AnswerRecord{ID: raw(`"d\u00e9-1"`), Keep: []json.RawMessage{raw(`"https://x/1"`), raw(`{"a":[1,2.50]}`)},
				Question: "Who \"founded\" it?\n", Answer: "Ada\u2028Lovelace", Score: 1.5e-7, Start: 3, End: 15, Windows: 2,
				Answers: []Answer{{Answer: "Ada", Score: 0.75, Start: 3, End: 6}, {Answer: "", Score: 0.125}}})
		},
		func() error {
			return w.WriteAnswer(AnswerRecord{ID: raw(`42`), Keep: []json.RawMessage{raw(`null`), raw(`7`)}, Question: "q", Answer: "a", Score: 0.9999732971191406, Start: 0, End: 1, Windows: 1})
		},
		func() error {
			return w.WriteError(ErrorRecord{ID: nil, Pos: Position{File: "in.jsonl", At: 1234}, Error: "line 7: not JSON"})
		},
		func() error {
			return w.WriteError(ErrorRecord{ID: raw(`"p:3"`), Keep: []json.RawMessage{raw(`"u"`), raw(`true`)}, Pos: Position{File: "in.parquet", At: 3, Row: true},
				Question: "Where?", Error: "the document needs 9 windows"})
		},
	}
	for _, write := range records {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	again := NewWriter(&got, keep...)
	if err := Replay(bytes.NewReader(want.Bytes()), keep, again); err != nil {
		t.Fatal(err)
	}
	if err := again.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("replayed:\n%s\nwritten:\n%s", got.String(), want.String())
	}
	if n := strings.Count(want.String(), "\n"); n != len(records) {
		t.Fatalf("%d lines written, want %d", n, len(records))
	}
}

// TestReplayRefuses: lines this package did not write are refused with
// their number.
func TestReplayRefuses(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"not an object", "{\"id\":1,\"question\":\"q\",\"answer\":\"a\",\"score\":1,\"start\":0,\"end\":1,\"windows\":1}\n[1]\n", "line 2: not a JSON object"},
		{"kept field missing", "{\"id\":1,\"question\":\"q\"}\n", `"url" was expected`},
		{"unknown key", "{\"id\":1,\"url\":null,\"colour\":\"red\"}\n", `unexpected key "colour"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Replay(strings.NewReader(tc.text), []string{"url"}, NewWriter(&bytes.Buffer{}, "url"))
			if tc.name == "not an object" {
				err = Replay(strings.NewReader(tc.text), nil, NewWriter(&bytes.Buffer{}))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Replay = %v, want %q", err, tc.want)
			}
		})
	}
}
