package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestStreamGolden reads a mixed file of good and bad records and renders
// every Document, error message included, so that a change in what users
// see shows up in review as a diff of testdata/mixed.golden.jsonl.
func TestStreamGolden(t *testing.T) {
	path := filepath.Join("testdata", "mixed.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewStream(f, Options{Questions: []string{"What is this about?"}, File: "mixed.jsonl"})

	type view struct {
		Seq       int64           `json:"seq"`
		At        int64           `json:"at"`
		ID        json.RawMessage `json:"id"`
		Context   string          `json:"context,omitempty"`
		Questions []string        `json:"questions,omitempty"`
		Err       string          `json:"err,omitempty"`
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	var docs int64
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		v := view{Seq: d.Seq, At: d.Pos.At, ID: d.ID, Context: d.Context, Questions: d.Questions}
		if v.ID == nil {
			v.ID = json.RawMessage("null")
		}
		if d.Err != nil {
			v.Err = d.Err.Error()
		}
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		docs++
	}
	golden(t, "mixed.golden.jsonl", out.Bytes())
	if docs != 11 {
		t.Errorf("read %d documents, want the 11 non-blank lines", docs)
	}
}
