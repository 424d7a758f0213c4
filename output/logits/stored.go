package logits

import (
	"encoding/json"
	"fmt"
	"strconv"

	"qa-shard/internal/record"
)

// stored is a record.LogitsRow as the file holds it, for one id type. A static type
// keeps parquet-go on its fast, column-wise path (about three times the
// speed of a schema built at run time).
type stored[ID string | int64] struct {
	ID            ID        `parquet:"id"`
	File          string    `parquet:"file"`
	Offset        *int64    `parquet:"offset,optional"`
	Row           *int64    `parquet:"row,optional"`
	QuestionIndex int32     `parquet:"question_index"`
	Question      string    `parquet:"question"`
	Window        int32     `parquet:"window"`
	InputIDs      []int32   `parquet:"input_ids,list"`
	SequenceIDs   []int8    `parquet:"sequence_ids,list"`
	WordIDs       []int32   `parquet:"word_ids,list"`
	OffsetStart   []int32   `parquet:"offset_start,list"`
	OffsetEnd     []int32   `parquet:"offset_end,list"`
	StartLogits   []float32 `parquet:"start_logits,list"`
	EndLogits     []float32 `parquet:"end_logits,list"`
}

func toStored[ID string | int64](r *record.LogitsRow, id ID) stored[ID] {
	s := stored[ID]{ID: id, File: r.Pos.File, QuestionIndex: r.QuestionIndex, Question: r.Question, Window: r.Window,
		InputIDs: r.InputIDs, SequenceIDs: r.SequenceIDs, WordIDs: r.WordIDs, OffsetStart: r.OffsetStart,
		OffsetEnd: r.OffsetEnd, StartLogits: r.StartLogits, EndLogits: r.EndLogits}
	at := r.Pos.At
	if r.Pos.Row {
		s.Row = &at
	} else {
		s.Offset = &at
	}
	return s
}

func fromStored[ID string | int64](s *stored[ID], id json.RawMessage) record.LogitsRow {
	r := record.LogitsRow{ID: id, Pos: record.Position{File: s.File}, QuestionIndex: s.QuestionIndex, Question: s.Question, Window: s.Window,
		InputIDs: s.InputIDs, SequenceIDs: s.SequenceIDs, WordIDs: s.WordIDs, OffsetStart: s.OffsetStart,
		OffsetEnd: s.OffsetEnd, StartLogits: s.StartLogits, EndLogits: s.EndLogits}
	switch {
	case s.Row != nil:
		r.Pos.At, r.Pos.Row = *s.Row, true
	case s.Offset != nil:
		r.Pos.At = *s.Offset
	}
	return r
}

// stringID and intID turn an id's JSON into the column's type.
func stringID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("id %s is not a string: %w", raw, err)
	}
	return s, nil
}

func intID(raw json.RawMessage) (int64, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("id %s is not an integer: %w", raw, err)
	}
	return n, nil
}
