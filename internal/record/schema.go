package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Kind is the type a column has in every output: JSONL writes the value
// as that JSON type, Parquet as that column type.
type Kind uint8

const (
	// String: JSON strings; a number or boolean becomes its text, an
	// object or array its compact JSON text.
	String Kind = iota
	// Int: JSON integers that fit in 64 bits (Parquet INT64).
	Int
	// Float: JSON numbers (Parquet DOUBLE).
	Float
	// Bool: true or false (Parquet BOOLEAN).
	Bool
	// JSON: any JSON value, kept as it is in JSONL and as its text in a
	// Parquet string column (objects and arrays).
	JSON
)

func (k Kind) String() string {
	return [...]string{"string", "integer", "number", "boolean", "JSON"}[k]
}

// Schema is the type of ids and of the kept fields in a run. Every output
// of the run uses it, so an id is the same type in answers, errors and
// logits, JSONL or Parquet. It is decided once, before the first batch,
// from the run's first record (see KindOf), so every rank agrees.
type Schema struct {
	ID   Kind   // String or Int
	Keep []Kind // one per Fields.Keep
}

// kindOf is the kind a column takes from its first value: an integer that
// fits in 64 bits is Int, any other number Float, a boolean Bool, an object
// or array JSON, and a string, null or nothing String (the kind that takes
// every value).
func kindOf(raw json.RawMessage) Kind {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return String
	}
	switch c := raw[0]; {
	case c == '{' || c == '[':
		return JSON
	case c == 't' || c == 'f':
		return Bool
	case isNumber(raw):
		if isInt64(raw) {
			return Int
		}
		return Float
	}
	return String
}

// idKindOf is KindOf restricted to what an id may be: Int or String.
func idKindOf(raw json.RawMessage) Kind {
	if kindOf(raw) == Int {
		return Int
	}
	return String
}

// convert returns raw (valid, compact JSON) as kind k: null stays null;
// a value that cannot be k without losing what it says is an error.
func convert(raw json.RawMessage, k Kind) (json.RawMessage, error) {
	if len(raw) == 0 || raw[0] == 'n' {
		return json.RawMessage("null"), nil
	}
	switch k {
	case String:
		if raw[0] == '"' {
			return raw, nil
		}
		return appendString(nil, string(raw)), nil
	case Int:
		if isNumber(raw) && isInt64(raw) {
			return raw, nil
		}
	case Float:
		if isNumber(raw) {
			return raw, nil
		}
	case Bool:
		if raw[0] == 't' || raw[0] == 'f' {
			return raw, nil
		}
	case JSON:
		return raw, nil
	}
	return nil, fmt.Errorf("%s is not %s", kind(raw), article(k))
}

func article(k Kind) string {
	if k == Int {
		return "an integer"
	}
	return "a " + k.String()
}

// isInt64 reports whether a JSON number is written as an integer that fits
// in 64 bits (so 1e3 and 1.0 are not).
func isInt64(raw []byte) bool {
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// compactJSON returns raw without insignificant whitespace; raw is valid.
func compactJSON(raw []byte) json.RawMessage {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return bytes.Clone(raw)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return bytes.Clone(raw)
	}
	return b.Bytes()
}

// Decode returns a value already in kind k (as the Stream makes them) as a
// Go value for a typed column: string (JSON values of kind JSON as their
// text), int64, float64 or bool; nil for null or nothing.
func Decode(raw json.RawMessage, k Kind) (any, error) {
	if len(raw) == 0 || raw[0] == 'n' {
		return nil, nil
	}
	switch k {
	case String:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case Int:
		return strconv.ParseInt(string(raw), 10, 64)
	case Float:
		return strconv.ParseFloat(string(raw), 64)
	case Bool:
		return raw[0] == 't', nil
	}
	return string(raw), nil
}

// GoType is the Go type a column of kind k holds.
func GoType(k Kind) any {
	switch k {
	case Int:
		return int64(0)
	case Float:
		return float64(0)
	case Bool:
		return false
	}
	return ""
}
