package record

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Records given by their parts rather than as a JSON object: a SQuAD
// paragraph (read by package input) is a context, its questions each with
// an id, and the article's fields. They are checked as Map checks a JSON
// record, and their question ids are kept (Document.QuestionIDs).

// Asked is one question of such a record: its text and its id.
type Asked struct{ ID, Text string }

// MapAsked fills doc from a record's parts: context, its questions with
// their ids, and field, the raw JSON value of a kept field by name (nil
// where the record has none). The record has no id of its own: it gets
// the default id from doc.Pos, as a JSON record without one. Questions are
// trimmed; the global questions come first (without ids), then asked in
// order; a question repeated with the same id is asked once, while the
// same text under two ids is asked under each, so every id gets its
// record.
func (m *Mapper) MapAsked(ctx string, asked []Asked, field func(name string) json.RawMessage, doc *Document) {
	names := Fields{ID: "id", Context: "context"}
	id, err := m.id(nil, doc.Pos, names.ID)
	if err != nil {
		doc.Err = err
		return
	}
	doc.ID = id
	kept := make([]json.RawMessage, len(m.opt.Fields.Keep))
	for i, name := range m.opt.Fields.Keep {
		kept[i] = field(name)
	}
	if doc.Keep, err = m.keep(kept); err != nil {
		doc.Err = err
		return
	}
	if doc.Context, err = contextOf(appendString(nil, ctx), names); err != nil {
		doc.Err = err
		return
	}
	qs := append(make([]string, 0, len(m.questions)+len(asked)), m.questions...)
	ids := make([]string, len(qs), cap(qs))
	seen := make(map[Asked]bool, len(asked))
	for _, a := range asked {
		a.Text = strings.TrimSpace(a.Text)
		if seen[a] {
			continue
		}
		seen[a] = true
		qs, ids = append(qs, a.Text), append(ids, a.ID)
	}
	if len(qs) == 0 {
		doc.Err = fmt.Errorf("%w: the paragraph has no questions and no global questions were given (--question)", ErrNoQuestion)
		return
	}
	doc.Questions, doc.QuestionIDs = qs, ids
}
