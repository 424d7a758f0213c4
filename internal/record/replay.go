package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Sink takes answer and error records in input order: what Replay hands
// them to, what the scheduler writes a run's records to, and what each
// answers format of package output is (*Writer is one). The one name of
// the one interface.
type Sink interface {
	WriteAnswer(AnswerRecord) error
	WriteError(ErrorRecord) error
}

// Replay reads JSONL answers as a Writer with the kept fields keep wrote
// them and hands every record, in order, to sink: the inverse of Writer,
// so that answers can be written again in another format (qa-shard merge
// converting ranks' JSONL into Parquet) with the values a run had. An
// error record is a line with an "error"; a line this package did not
// write is an error naming its number.
func Replay(r io.Reader, keep []string, sink Sink) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := replayLine(line, keep, sink); perr != nil {
				return fmt.Errorf("answers line %d: %w", n, perr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// replayLine decodes one record: the id, the kept fields in their order,
// then the record's own keys.
func replayLine(line []byte, keep []string, sink Sink) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	t, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if t != json.Delim('{') {
		return fmt.Errorf("not a JSON object: it starts with %v", t)
	}
	var id json.RawMessage
	if err := member(dec, "id", &id); err != nil {
		return err
	}
	kept := make([]json.RawMessage, len(keep))
	for i, name := range keep {
		if err := member(dec, name, &kept[i]); err != nil {
			return err
		}
	}
	var (
		a             = AnswerRecord{ID: id, Keep: kept}
		e             = ErrorRecord{ID: id, Keep: kept}
		isError       bool
		start, end    int
		windows       int
		file, errText string
		at            int64
		row           bool
	)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var target any
		switch key {
		case "question":
			target = &a.Question
		case "question_id":
			target = &a.QuestionID
		case "span_logit":
			target = &a.SpanLogit
		case "null_logit":
			target = &a.NullLogit
		case "answer":
			target = &a.Answer
		case "score":
			target = &a.Score
		case "start":
			target = &start
		case "end":
			target = &end
		case "windows":
			target = &windows
		case "answers":
			var list []struct {
				Answer     string  `json:"answer"`
				Score      float64 `json:"score"`
				Start, End int
				SpanLogit  float64 `json:"span_logit"`
			}
			if err := dec.Decode(&list); err != nil {
				return fmt.Errorf("%q: %w", key, err)
			}
			for _, c := range list {
				a.Answers = append(a.Answers, Answer(c))
			}
			continue
		case "file":
			target = &file
		case "offset", "row":
			target, row = &at, key == "row"
		case "error":
			target, isError = &errText, true
		default:
			return fmt.Errorf("unexpected key %q", key)
		}
		if err := dec.Decode(target); err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
	}
	if isError {
		e.Question, e.QuestionID, e.Error, e.Pos = a.Question, a.QuestionID, errText, Position{File: file, At: at, Row: row}
		return sink.WriteError(e)
	}
	a.Start, a.End, a.Windows = start, end, windows
	return sink.WriteAnswer(a)
}

// member decodes the next member of an object, which must be name.
func member(dec *json.Decoder, name string, v *json.RawMessage) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != name {
		return fmt.Errorf("found key %v where %q was expected", t, name)
	}
	return dec.Decode(v)
}
