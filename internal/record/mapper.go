package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mapper turns the raw values of a record's fields into a Document: the
// id in the run's id kind (or the default id), the kept fields in their
// kinds, the context and the questions, or the error that makes it an
// error record. The JSONL Stream and the Parquet reader both use one, so
// every input format checks records the same way. A Mapper is not safe
// for concurrent use.
type Mapper struct {
	opt       Options
	plan      fieldPlan
	questions []string
	items     []json.RawMessage // the questions array, reused
}

// NewMapper returns a Mapper for opt's fields, schema and global questions.
func NewMapper(opt Options) *Mapper {
	for len(opt.Schema.Keep) < len(opt.Fields.Keep) {
		opt.Schema.Keep = append(opt.Schema.Keep, String)
	}
	return &Mapper{opt: opt, plan: planFields(opt.Fields), questions: CleanQuestions(opt.Questions)}
}

// Names are the fields Map takes values of, in order: the id, the
// context, the question field(s), the settings field (when the run has
// one), then the kept fields.
func (m *Mapper) Names() []string { return m.plan.literal }

// Context is the context field's name: a record without it is an error
// record, and a Parquet file without it is refused.
func (m *Mapper) Context() string { return m.plan.literal[m.plan.ctx] }

// Map fills doc from vals, one raw JSON value per Names() (empty when the
// record lacks the field). utf8Err, when set, is the record's invalid
// UTF-8, reported after the id is read.
func (m *Mapper) Map(vals []json.RawMessage, utf8Err error, doc *Document) {
	// Even a record with bad UTF-8 elsewhere can name its id, which makes
	// the error record easier to trace back.
	r := m
	names := r.opt.Fields.Names()
	id, err := r.id(vals[r.plan.id], doc.Pos, names.ID)
	if err != nil && utf8Err == nil {
		doc.Err = err
		return
	}
	doc.ID = id
	if utf8Err != nil {
		doc.Err = utf8Err
		return
	}
	if doc.Keep, err = r.keep(vals[r.plan.keep:]); err != nil {
		doc.Err = err
		return
	}
	if r.plan.settings >= 0 {
		if doc.Settings, err = settingsOf(vals[r.plan.settings], names.Settings); err != nil {
			doc.Err = err
			return
		}
	}
	doc.Err = r.fill(vals, doc, names)
}

// id converts a record's id to the run's id kind; a record without one
// gets the default id "<file>:<offset or row>" in a run of string ids.
func (m *Mapper) id(raw json.RawMessage, pos Position, name string) (json.RawMessage, error) {
	switch {
	case len(raw) == 0 && m.opt.Schema.ID == String:
		return appendString(nil, pos.File+":"+strconv.FormatInt(pos.At, 10)), nil
	case len(raw) == 0:
		return nil, fmt.Errorf("%w: the record has no %q, and this run's ids are integers (its first record has one): give every record an id, or pass --id-type string", ErrBadID, name)
	case (raw[0] == '"' || isNumber(raw)) && utf8.Valid(raw):
		id, err := convert(bytes.Clone(raw), m.opt.Schema.ID)
		if err != nil {
			return nil, fmt.Errorf("%w: %q %s is %s, and this run's ids are integers (its first record's id is one): pass --id-type string to read every id as a string", ErrBadID, name, raw, kind(raw))
		}
		return id, nil
	}
	return nil, fmt.Errorf("%w: %q must be a string or a number, found %s", ErrBadID, name, kind(raw))
}

// SchemaOf is the schema a run takes from its first record, line (see
// KindOf); ok is false when line is not a JSON object, and then every
// column is a String.
func SchemaOf(line []byte, f Fields) (s Schema, ok bool) {
	s.Keep = make([]Kind, len(f.Keep))
	p, vals, ok := fieldsOf(line, f)
	if !ok {
		return s, false
	}
	s.ID = idKindOf(vals[p.id])
	for i := range s.Keep {
		s.Keep[i] = kindOf(vals[p.keep+i])
	}
	return s, true
}

// AsksOf says whether a record, line, asks a question of its own: its
// question field(s) hold a non-blank string, alone or in an array, as Map
// reads them. known is false when line is not a JSON object (Map makes it
// an error record; it says nothing of the records after it).
func AsksOf(line []byte, f Fields) (asks, known bool) {
	p, vals, ok := fieldsOf(line, f)
	if !ok {
		return false, false
	}
	for _, i := range []int{p.question, p.questions} {
		if i < 0 || len(vals[i]) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(vals[i], &v) != nil {
			continue
		}
		items, _ := v.([]any)
		if s, ok := v.(string); ok {
			items = []any{s}
		}
		for _, it := range items {
			if s, ok := it.(string); ok && strings.TrimSpace(s) != "" {
				return true, true
			}
		}
	}
	return false, true
}

// fieldsOf extracts f's fields from one record, line (the plan says which
// value is which); ok is false when line is not a JSON object.
func fieldsOf(line []byte, f Fields) (fieldPlan, []json.RawMessage, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		return fieldPlan{}, nil, false
	}
	p := planFields(f)
	vals := make([]json.RawMessage, len(p.paths))
	p.extract(line, vals)
	return p, vals, true
}

// Present says which of a record's fields (the Mapper's Names, in
// order) line holds, null ones included; ok is false when line is not a
// JSON object.
func Present(line []byte, f Fields) (present []bool, ok bool) {
	_, vals, ok := fieldsOf(line, f)
	present = make([]bool, len(vals))
	for i, v := range vals {
		present[i] = len(v) > 0
	}
	return present, ok
}

// Keys are the top-level keys of the JSON object line, in order (none
// when it is not one): what a message lists as the fields a record has.
func Keys(line []byte) []string {
	var keys []string
	if _, _, ok := fieldsOf(line, Fields{}); !ok {
		return nil
	}
	eachMember(bytes.TrimSpace(line), func(key, _ []byte) {
		var k string
		if json.Unmarshal(key, &k) == nil {
			keys = append(keys, k)
		}
	})
	return keys
}

// QuestionFields are the names of the fields records keep their own
// questions in ("question" and "questions", or --question-field's).
func (m *Mapper) QuestionFields() []string {
	if m.plan.questions < 0 {
		return []string{m.plan.literal[m.plan.question]}
	}
	return []string{m.plan.literal[m.plan.question], m.plan.literal[m.plan.questions]}
}

// keep converts the kept fields to their kinds.
func (m *Mapper) keep(vals []json.RawMessage) ([]json.RawMessage, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := make([]json.RawMessage, len(vals))
	for i, raw := range vals {
		v, err := convert(compactJSON(raw), m.opt.Schema.Keep[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %w, as in this run's first record (a column has one type)", ErrBadField, m.opt.Fields.Keep[i], err)
		}
		out[i] = v
	}
	return out, nil
}

// contextOf decodes a record's context, which must be a string with text.
func contextOf(raw json.RawMessage, names Fields) (string, error) {
	switch {
	case len(raw) == 0:
		return "", fmt.Errorf(`%w: every record needs a %q string to answer questions from (--context-field names another field)`, ErrMissingContext, names.Context)
	case raw[0] != '"':
		return "", fmt.Errorf(`%w: %q must be a string, found %s`, ErrContextNotString, names.Context, kind(raw))
	}
	ctx, err := unquote(raw)
	if err != nil {
		return "", fmt.Errorf(`%w: %q: %w`, ErrMalformedJSON, names.Context, err)
	}
	if strings.TrimSpace(ctx) == "" {
		return "", fmt.Errorf("%w: %q has no text to answer from", ErrEmptyContext, names.Context)
	}
	return ctx, nil
}

// fill decodes the context and questions of a well-formed record.
func (m *Mapper) fill(vals []json.RawMessage, doc *Document, names Fields) error {
	ctx, err := contextOf(vals[m.plan.ctx], names)
	if err != nil {
		return err
	}

	qname, qsname := "question", "questions"
	single, list := vals[m.plan.question], json.RawMessage(nil)
	if m.plan.custom {
		qname, qsname = names.Question, names.Question
		if len(single) > 0 && single[0] == '[' {
			single, list = nil, single
		}
	} else {
		list = vals[m.plan.questions]
	}
	// The array is decoded into a reused slice first so that the list
	// handed to the caller is allocated once, at its final size.
	m.items = m.items[:0]
	if len(list) > 0 {
		if list[0] != '[' {
			return fmt.Errorf(`%w: %q must be an array of strings, found %s`, ErrBadQuestion, qsname, kind(list))
		}
		if err := json.Unmarshal(list, &m.items); err != nil {
			return fmt.Errorf(`%w: %q: %w`, ErrMalformedJSON, qsname, err)
		}
	}
	qs := make([]string, len(m.questions), len(m.questions)+1+len(m.items))
	copy(qs, m.questions)
	if len(single) > 0 && single[0] != 'n' {
		q, err := question(single, qname, -1)
		if err != nil {
			return err
		}
		qs = appendUnique(qs, q)
	}
	for i, item := range m.items {
		q, err := question(item, qsname, i)
		if err != nil {
			return err
		}
		qs = appendUnique(qs, q)
	}
	if len(qs) == 0 {
		return fmt.Errorf(`%w: the record has no %q and no global questions were given (--question)`, ErrNoQuestion, qname)
	}
	doc.Context, doc.Questions = ctx, qs
	return nil
}

// question decodes and trims one question: the field itself when index
// is -1, else its element index. An empty question is returned as "": it
// is not asked, and gets an error record of its own.
func question(raw json.RawMessage, field string, index int) (string, error) {
	name := strconv.Quote(field)
	if index >= 0 {
		name = fmt.Sprintf(`%s[%d]`, name, index)
	}
	if raw[0] != '"' {
		return "", fmt.Errorf("%w: %s must be a string, found %s", ErrBadQuestion, name, kind(raw))
	}
	q, err := unquote(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrMalformedJSON, name, err)
	}
	return strings.TrimSpace(q), nil
}
