package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parse fills doc from one non-blank line, or sets doc.Err.
func (r *Stream) parse(line []byte, doc *Document) {
	utf8Err := checkUTF8(line)
	if trimmed := bytes.TrimLeft(line, " \t\r\v\f"); trimmed[0] != '{' {
		doc.Err = firstErr(utf8Err, fmt.Errorf("%w: a record must be a JSON object, found %s", ErrMalformedJSON, kind(trimmed)))
		return
	}
	if !json.Valid(line) {
		var raw json.RawMessage
		doc.Err = firstErr(utf8Err, malformed(json.Unmarshal(line, &raw)))
		return
	}
	r.m.plan.extract(line, r.vals)
	r.m.Map(r.vals, utf8Err, doc)
}

// unquote decodes a JSON string. Most strings have no escapes, and those
// (already checked as valid JSON and UTF-8) are their own bytes, which
// saves the decoder's allocations on every context.
func unquote(raw json.RawMessage) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// appendUnique appends q unless list already has it. Lists are a handful of
// questions, so a scan beats building a set per document.
func appendUnique(list []string, q string) []string {
	for _, have := range list {
		if have == q {
			return list
		}
	}
	return append(list, q)
}

// CleanQuestions trims the global questions and drops empty ones and
// duplicates, so that every document's list starts from the same clean
// base: the questions a run asks.
func CleanQuestions(in []string) []string {
	var out []string
	for _, q := range in {
		if q = strings.TrimSpace(q); q != "" {
			out = appendUnique(out, q)
		}
	}
	return out
}

// checkUTF8 runs before decoding because encoding/json would silently turn
// bad bytes into U+FFFD and the answer offsets would then point at text the
// user never wrote.
func checkUTF8(line []byte) error {
	if utf8.Valid(line) {
		return nil
	}
	off := 0
	for off < len(line) {
		r, n := utf8.DecodeRune(line[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return fmt.Errorf("%w: byte %d of the line is not valid UTF-8 (re-encode the input as UTF-8)", ErrInvalidUTF8, off+1)
}

func malformed(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%w: %w (at byte %d)", ErrMalformedJSON, syn, syn.Offset)
	}
	return fmt.Errorf("%w: %w", ErrMalformedJSON, err)
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func isNumber(raw []byte) bool {
	return raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9')
}

// kind names the JSON type of a value for error messages.
func kind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		return "a string"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == 'n':
		return "null"
	case raw[0] == 't' || raw[0] == 'f':
		return "a boolean"
	case isNumber(raw):
		return "a number"
	}
	return strconv.Quote(string(raw[:min(len(raw), 20)]))
}
