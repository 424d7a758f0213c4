package cli

import (
	"reflect"
	"strings"
	"unicode"

	"qa-shard/internal/record"
)

// AnswerSettings are the settings the answers and logits depend on, with
// the run's record schema: part of the fingerprint --resume compares. The
// keys are the flags' names (every field of qa.Settings, by reflection, so
// a new setting cannot be left out), so that a resume refused for changed
// settings names each one with its old and new value.
func (o *RunOptions) AnswerSettings(schema record.Schema) any {
	m := map[string]any{}
	v := reflect.ValueOf(o.Settings)
	for i := range v.NumField() {
		m[flagName(v.Type().Field(i).Name)] = v.Field(i).Interface()
	}
	kinds := make([]string, len(schema.Keep))
	for i, k := range schema.Keep {
		kinds[i] = k.String()
	}
	m["max-line-bytes"] = o.MaxLineBytes
	m["logits"] = o.Logits != ""
	m["id-field"], m["context-field"], m["question-field"], m["keep-fields"] = o.Fields.ID, o.Fields.Context, o.Fields.Question, o.Fields.Keep
	m["id-type"], m["keep-field-types"] = schema.ID.String(), kinds
	m["max-windows-per-doc"] = o.MaxWindowsPerDoc
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
