package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestWriterKeysAreColumns: every key the JSONL Writer writes, in answer
// and error records of every shape, is the id, a kept field or one of
// AnswerColumns, so Reserved (what --keep-fields is checked against)
// covers every key a kept field could collide with.
func TestWriterKeysAreColumns(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, "url")
	keep := []json.RawMessage{json.RawMessage(`"u"`)}
	for _, err := range []error{
		w.WriteAnswer(AnswerRecord{ID: json.RawMessage(`"a"`), Keep: keep, Question: "Q?", QuestionID: "q1", Answer: "x", Windows: 1,
			Answers: []Answer{{Answer: "x"}, {Answer: "y"}}}),
		w.WriteError(ErrorRecord{ID: json.RawMessage(`"b"`), Keep: keep, Pos: Position{File: "f", At: 3}, Question: "Q?", QuestionID: "q1", Error: "e"}),
		w.WriteError(ErrorRecord{Pos: Position{File: "f.parquet", At: 3, Row: true}, Error: "e"}),
		w.Flush(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for line := range bytes.Lines(buf.Bytes()) {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		for k := range rec {
			seen[k] = true
			if k != IDColumn && k != "url" && !slices.Contains(AnswerColumns, k) {
				t.Errorf("the Writer wrote %q, which is not in AnswerColumns %v", k, AnswerColumns)
			}
		}
	}
	for _, c := range AnswerColumns {
		if !seen[c] {
			t.Errorf("AnswerColumns names %q, which no record written here has", c)
		}
	}
}

// TestReserved: the names of every output's columns are reserved, a
// name no output has is not, and ReservedColumns lists each once.
func TestReserved(t *testing.T) {
	for _, name := range []string{"id", "question", "span_logit", "null_logit", "question_id", "answers", "window", "question_index", "input_ids", "start_logits", "row"} {
		if !Reserved(name) {
			t.Errorf("Reserved(%q) = false", name)
		}
	}
	for _, name := range []string{"url", "Score", "meta.answer", ""} {
		if Reserved(name) {
			t.Errorf("Reserved(%q) = true", name)
		}
	}
	all := ReservedColumns()
	for i, c := range all {
		if slices.Contains(all[:i], c) || !Reserved(c) {
			t.Errorf("ReservedColumns %v: %q twice, or not reserved", all, c)
		}
	}
}
