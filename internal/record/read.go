package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"qa-shard/internal/errkind"
)

// Read is what a reader takes of one answer or error record, whatever
// format held it (ReadLine for a JSON line, ReadRow for a Parquet row):
// the id as text (integer ids in decimal), the question and its id, the
// answer ("" for an error record), its score and offsets, the raw logits
// (nil for an error record, or an output written before they were), and
// an error record's reason.
type Read struct {
	ID, Question, QuestionID, Answer string
	Score                            float64
	Start, End                       int
	SpanLogit, NullLogit             *float64
	IsError                          bool
	Error                            string
}

// ErrNotARecord is a JSON line that is neither an answer nor an error
// record.
var ErrNotARecord = errkind.NewUser(`not an answer record (it has no "answer" and no "error"): give the --output of a qa-shard run (or another reader's answers with id, question and answer)`)

// ReadLine reads one JSON answer or error record, as Writer writes them
// (or another reader's answers with id, question and answer), leniently:
// fields it does not know are ignored.
func ReadLine(line []byte) (Read, error) {
	var r struct {
		ID         json.RawMessage `json:"id"`
		Question   string          `json:"question"`
		QuestionID string          `json:"question_id"`
		Answer     *string         `json:"answer"`
		Score      float64         `json:"score"`
		Start      int             `json:"start"`
		End        int             `json:"end"`
		SpanLogit  *float64        `json:"span_logit"`
		NullLogit  *float64        `json:"null_logit"`
		Error      *string         `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return Read{}, err
	}
	if r.Error == nil && r.Answer == nil {
		return Read{}, ErrNotARecord
	}
	a := Read{ID: idText(r.ID), Question: r.Question, QuestionID: r.QuestionID, Score: r.Score, Start: r.Start, End: r.End,
		SpanLogit: r.SpanLogit, NullLogit: r.NullLogit, IsError: r.Error != nil}
	if r.Answer != nil {
		a.Answer = *r.Answer
	}
	if r.Error != nil {
		a.Error = *r.Error
	}
	return a, nil
}

// ReadRow reads one Parquet answers row, its columns by name (as
// parquet-go's generic reader gives them).
func ReadRow(m map[string]any) Read {
	a := Read{ID: text(m[IDColumn]), Question: text(m["question"]), QuestionID: text(m["question_id"]), Answer: text(m["answer"]),
		Start: integer(m["start"]), End: integer(m["end"]), SpanLogit: float(m["span_logit"]), NullLogit: float(m["null_logit"]),
		Error: text(m["error"])}
	a.IsError = a.Error != ""
	if s := float(m["score"]); s != nil {
		a.Score = *s
	}
	return a
}

// RowColumns are the columns ReadRow needs a Parquet answers file to
// have.
var RowColumns = []string{IDColumn, "question", "answer"}

// idText is a JSON id (a string or a number) as text.
func idText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// text is a Parquet value as the JSON answers would spell it: strings as
// they are, integer ids in decimal, null as "".
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	}
	return fmt.Sprint(v)
}

// integer is a Parquet int64, 0 for null.
func integer(v any) int {
	if x, ok := v.(int64); ok {
		return int(x)
	}
	return 0
}

// float is a Parquet double as a pointer, nil for null or a missing column.
func float(v any) *float64 {
	if x, ok := v.(float64); ok {
		return &x
	}
	return nil
}
