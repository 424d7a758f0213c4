package hfjson

import (
	"encoding/json"
	"reflect"
)

// SequenceMembers reads a Sequence component of tokenizer.json: its
// "type" and the list of its members under key ("normalizers",
// "pretokenizers", "processors"), any other field refused as strict
// refuses it. The one reader of every kind of Sequence.
func SequenceMembers(raw json.RawMessage, key, what string) ([]json.RawMessage, error) {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "Type", Type: reflect.TypeFor[string](), Tag: `json:"type"`},
		{Name: "Members", Type: reflect.TypeFor[[]json.RawMessage](), Tag: reflect.StructTag(`json:"` + key + `"`)},
	})
	v := reflect.New(t)
	if err := Strict(raw, v.Interface(), what); err != nil {
		return nil, err
	}
	return v.Elem().Field(1).Interface().([]json.RawMessage), nil
}

// ParseSequence parses a Sequence's members with parse, in order, leaving
// out those that parse to nothing (a null member).
func ParseSequence[T comparable](raw json.RawMessage, key, what string, parse func(json.RawMessage) (T, error)) ([]T, error) {
	members, err := SequenceMembers(raw, key, what)
	if err != nil {
		return nil, err
	}
	var zero T
	var out []T
	for _, m := range members {
		c, err := parse(m)
		if err != nil {
			return nil, err
		}
		if c != zero {
			out = append(out, c)
		}
	}
	return out, nil
}
