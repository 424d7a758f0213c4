package record

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// ParquetRows lays answer and error records out as the rows of the
// Parquet answers, as Writer lays them out as JSON lines: the id, the
// kept fields in their kinds, then AnswerColumns (the answers list only
// with top-k above 1), every column optional (null where a record has no
// value: an error's answer columns, an answer's error). Package output
// writes and seals the parts; the layout is this package's.
type ParquetRows struct {
	typ  reflect.Type
	keep []Kind
	id   Kind
	list bool
}

// The fixed columns' places in the row type, after the id and kept
// fields: their names are AnswerColumns, in this order.
const (
	colQuestion = iota
	colQuestionID
	colAnswer
	colScore
	colStart
	colEnd
	colSpanLogit
	colNullLogit
	colWindows
	colFile
	colOffset
	colRow
	colError
	colAnswers // only with top-k > 1
)

// columnTypes are the Go types of the fixed columns but the answers
// list, by place.
var columnTypes = [...]any{colQuestion: "", colQuestionID: "", colAnswer: "", colScore: 0.0, colStart: int64(0), colEnd: int64(0),
	colSpanLogit: 0.0, colNullLogit: 0.0, colWindows: int64(0), colFile: "", colOffset: int64(0), colRow: int64(0), colError: ""}

// parquetCandidate is one element of the answers list.
type parquetCandidate struct {
	Answer    string  `parquet:"answer"`
	Score     float64 `parquet:"score"`
	Start     int64   `parquet:"start"`
	End       int64   `parquet:"end"`
	SpanLogit float64 `parquet:"span_logit"`
}

// NewParquetRows is the row layout of a run's answers: its kept fields
// (names, and kinds in schema), its id kind, and whether top-k lists
// answers.
func NewParquetRows(keep []string, schema Schema, topK int) ParquetRows {
	ptr := func(v any) reflect.Type { return reflect.PointerTo(reflect.TypeOf(v)) }
	field := func(i int, t reflect.Type, name string) reflect.StructField {
		return reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag("parquet:" + strconv.Quote(name+",optional"))}
	}
	fs := []reflect.StructField{field(0, ptr(GoType(schema.ID)), IDColumn)}
	for i, name := range keep {
		fs = append(fs, field(len(fs), ptr(GoType(schema.Keep[i])), name))
	}
	for col, name := range AnswerColumns {
		if col == colAnswers {
			if topK > 1 {
				f := field(len(fs), reflect.TypeFor[[]parquetCandidate](), name)
				f.Tag = reflect.StructTag("parquet:" + strconv.Quote(name+",list"))
				fs = append(fs, f)
			}
			continue
		}
		fs = append(fs, field(len(fs), ptr(columnTypes[col]), name))
	}
	return ParquetRows{typ: reflect.StructOf(fs), keep: schema.Keep, id: schema.ID, list: topK > 1}
}

// Type is the rows' Go type (a struct with parquet tags), for the
// Parquet schema.
func (l ParquetRows) Type() reflect.Type { return l.typ }

// Answer is r as a row (a pointer to a value of Type).
func (l ParquetRows) Answer(r AnswerRecord) (any, error) {
	v, err := l.newRow(r.ID, r.Keep)
	if err != nil {
		return nil, err
	}
	setPtr(l.fixed(v, colQuestion), r.Question)
	if r.QuestionID != "" {
		setPtr(l.fixed(v, colQuestionID), r.QuestionID)
	}
	setPtr(l.fixed(v, colAnswer), r.Answer)
	setPtr(l.fixed(v, colScore), r.Score)
	setPtr(l.fixed(v, colStart), int64(r.Start))
	setPtr(l.fixed(v, colEnd), int64(r.End))
	setPtr(l.fixed(v, colSpanLogit), r.SpanLogit)
	setPtr(l.fixed(v, colNullLogit), r.NullLogit)
	setPtr(l.fixed(v, colWindows), int64(r.Windows))
	if l.list {
		cands := make([]parquetCandidate, len(r.Answers))
		for i, a := range r.Answers {
			cands[i] = parquetCandidate{Answer: a.Answer, Score: a.Score, Start: int64(a.Start), End: int64(a.End), SpanLogit: a.SpanLogit}
		}
		l.fixed(v, colAnswers).Set(reflect.ValueOf(cands))
	}
	return v.Addr().Interface(), nil
}

// Error is r as a row (a pointer to a value of Type).
func (l ParquetRows) Error(r ErrorRecord) (any, error) {
	v, err := l.newRow(r.ID, r.Keep)
	if err != nil {
		return nil, err
	}
	if r.Question != "" {
		setPtr(l.fixed(v, colQuestion), r.Question)
	}
	if r.QuestionID != "" {
		setPtr(l.fixed(v, colQuestionID), r.QuestionID)
	}
	setPtr(l.fixed(v, colFile), r.Pos.File)
	if r.Pos.Row {
		setPtr(l.fixed(v, colRow), r.Pos.At)
	} else {
		setPtr(l.fixed(v, colOffset), r.Pos.At)
	}
	setPtr(l.fixed(v, colError), r.Error)
	return v.Addr().Interface(), nil
}

func setPtr[T any](f reflect.Value, x T) { f.Set(reflect.ValueOf(&x)) }

func (l ParquetRows) fixed(v reflect.Value, col int) reflect.Value {
	return v.Field(1 + len(l.keep) + col)
}

func (l ParquetRows) newRow(idRaw []byte, keep []json.RawMessage) (reflect.Value, error) {
	v := reflect.New(l.typ).Elem()
	if err := setKind(v.Field(0), idRaw, l.id); err != nil {
		return v, fmt.Errorf("id: %w", err)
	}
	for i, kind := range l.keep {
		var raw []byte
		if i < len(keep) {
			raw = keep[i]
		}
		if err := setKind(v.Field(1+i), raw, kind); err != nil {
			return v, fmt.Errorf("kept field %d: %w", i, err)
		}
	}
	return v, nil
}

// setKind stores a JSON value of kind k into a pointer field (nil for
// null).
func setKind(f reflect.Value, raw []byte, k Kind) error {
	x, err := Decode(raw, k)
	if err != nil || x == nil {
		return err
	}
	ptr := reflect.New(reflect.TypeOf(x))
	ptr.Elem().Set(reflect.ValueOf(x))
	f.Set(ptr)
	return nil
}
