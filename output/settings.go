package output

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// AnswerSettings are the settings a run's answers and logits depend on,
// with the run's record schema: part of the fingerprint --resume compares,
// and what merge and status read back the answers' columns from
// (Columns).
type AnswerSettings struct {
	QA               qa.Settings
	Fields           record.Fields
	Schema           record.Schema
	MaxLineBytes     int
	Logits           bool // a logits folder is written
	MaxWindowsPerDoc int
}

// Keyed is s keyed by the run's flag names (every field of qa.Settings,
// by reflection, so a new setting cannot be left out), as the fingerprint
// takes it, so that a resume refused for changed settings names each one
// with its old and new value. record-layout is the answer records' fields
// (record.Layout): outputs begun by a qa-shard that wrote other fields
// are not continued or merged with these.
func (s AnswerSettings) Keyed() map[string]any {
	m := map[string]any{}
	v := reflect.ValueOf(s.QA)
	for i := range v.NumField() {
		m[flagName(v.Type().Field(i).Name)] = v.Field(i).Interface()
	}
	kinds := make([]string, len(s.Schema.Keep))
	for i, k := range s.Schema.Keep {
		kinds[i] = k.String()
	}
	m["max-line-bytes"] = s.MaxLineBytes
	m["logits"] = s.Logits
	m["id-field"], m["context-field"], m["question-field"], m["keep-fields"] = s.Fields.ID, s.Fields.Context, s.Fields.Question, s.Fields.Keep
	m["id-type"], m["keep-field-types"] = s.Schema.ID.String(), kinds
	m["max-windows-per-doc"] = s.MaxWindowsPerDoc
	if s.Fields.Settings != "" { // only when given: journals written before it compare equal
		m["settings-field"] = s.Fields.Settings
	}
	m["record-layout"] = record.Layout
	return m
}

// flagName is the flag of a qa.Settings field: MaxAnswerLen is
// max-answer-len.
func flagName(field string) string {
	if f, ok := map[string]string{"HandleImpossible": "handle-impossible-answer"}[field]; ok {
		return f
	}
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Columns reads back, from the settings a journal records as text
// (fingerprint.Fingerprint.SettingsText, AnswerSettings.Keyed written by
// fingerprint.Text), what decides the answers' columns: the kept fields,
// the kinds of ids and kept fields, and top-k. It is an error when the
// text lacks them (a journal written before it recorded them).
func Columns(settingsText string) (keep []string, schema record.Schema, topK int, err error) {
	var m map[string]json.RawMessage
	var s struct {
		Keep      []string `json:"keep-fields"`
		KeepTypes []string `json:"keep-field-types"`
		IDType    string   `json:"id-type"`
		TopK      int      `json:"top-k"`
	}
	err = json.Unmarshal([]byte(settingsText), &m)
	for _, k := range []string{"keep-fields", "keep-field-types", "id-type", "top-k"} {
		if _, ok := m[k]; !ok && err == nil {
			err = fmt.Errorf("no %q", k)
		}
	}
	if err == nil {
		err = json.Unmarshal([]byte(settingsText), &s)
	}
	if err == nil && len(s.KeepTypes) != len(s.Keep) {
		err = fmt.Errorf("%d kept fields, %d types", len(s.Keep), len(s.KeepTypes))
	}
	if err != nil {
		return nil, schema, 0, fmt.Errorf("the journal does not record the answers' columns (kept fields, their types, the id's type, top-k): it was written by an older qa-shard (%w)", err)
	}
	kind := func(name string) (record.Kind, error) {
		for k := record.String; k <= record.JSON; k++ {
			if k.String() == name {
				return k, nil
			}
		}
		return 0, fmt.Errorf("the journal records the unknown column type %q", name)
	}
	if schema.ID, err = kind(s.IDType); err != nil {
		return nil, schema, 0, err
	}
	schema.Keep = make([]record.Kind, len(s.KeepTypes))
	for i, name := range s.KeepTypes {
		if schema.Keep[i], err = kind(name); err != nil {
			return nil, schema, 0, err
		}
	}
	return s.Keep, schema, s.TopK, nil
}

// WroteLogits reads back, from the settings a journal records as text,
// whether the run wrote a logits folder; false when the text does not say.
func WroteLogits(settingsText string) bool {
	var s struct {
		Logits bool `json:"logits"`
	}
	return json.Unmarshal([]byte(settingsText), &s) == nil && s.Logits
}
