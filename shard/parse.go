package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rawRecord holds the fields a record may have, undecoded, so that each can
// be checked for its JSON type and the id kept exactly as written. The
// slices are reused from line to line. encoding/json matches keys without
// regard to case, so "ID" or "Context" are accepted as well.
type rawRecord struct {
	ID        json.RawMessage `json:"id"`
	Context   json.RawMessage `json:"context"`
	Question  json.RawMessage `json:"question"`
	Questions json.RawMessage `json:"questions"`
}

func (rec *rawRecord) reset() {
	// Unmarshal appends into these, so truncating keeps their memory and
	// an empty slice after decoding means the key was absent.
	rec.ID, rec.Context = rec.ID[:0], rec.Context[:0]
	rec.Question, rec.Questions = rec.Question[:0], rec.Questions[:0]
}

// parse fills doc from one non-blank line, or sets doc.Err.
func (r *Reader) parse(line []byte, doc *Document) {
	utf8Err := checkUTF8(line)

	rec := &r.rec
	rec.reset()
	if trimmed := bytes.TrimLeft(line, " \t\r\v\f"); trimmed[0] != '{' {
		doc.Err = firstErr(utf8Err, fmt.Errorf("%w: a record must be a JSON object, found %s", ErrMalformedJSON, kind(trimmed)))
		doc.Err = fmt.Errorf("line %d: %w", doc.Line, doc.Err)
		return
	}
	if err := json.Unmarshal(line, rec); err != nil {
		doc.Err = fmt.Errorf("line %d: %w", doc.Line, firstErr(utf8Err, malformed(err)))
		return
	}

	// Even a line with bad UTF-8 elsewhere can name its id, which makes
	// the error record easier to trace back.
	switch {
	case len(rec.ID) == 0:
		doc.ID = strconv.AppendInt(nil, doc.Line, 10)
	case (rec.ID[0] == '"' || isNumber(rec.ID)) && utf8.Valid(rec.ID):
		doc.ID = bytes.Clone(rec.ID)
	case utf8Err == nil:
		doc.Err = fmt.Errorf(`line %d: %w: "id" must be a string or a number, found %s`, doc.Line, ErrBadID, kind(rec.ID))
		return
	}
	if utf8Err != nil {
		doc.Err = fmt.Errorf("line %d: %w", doc.Line, utf8Err)
		return
	}

	if err := r.fill(rec, doc); err != nil {
		doc.Err = fmt.Errorf("line %d: %w", doc.Line, err)
	}
}

// fill decodes the context and questions of a well-formed record.
func (r *Reader) fill(rec *rawRecord, doc *Document) error {
	switch {
	case len(rec.Context) == 0:
		return fmt.Errorf(`%w: every record needs a "context" string to answer questions from`, ErrMissingContext)
	case rec.Context[0] != '"':
		return fmt.Errorf(`%w: found %s`, ErrContextNotString, kind(rec.Context))
	}
	ctx, err := unquote(rec.Context)
	if err != nil {
		return fmt.Errorf(`%w: "context": %w`, ErrMalformedJSON, err)
	}
	if strings.TrimSpace(ctx) == "" {
		return fmt.Errorf("%w: it has no text to answer from", ErrEmptyContext)
	}

	// The array is decoded into a reused slice first so that the list
	// handed to the caller is allocated once, at its final size.
	r.items = r.items[:0]
	if len(rec.Questions) > 0 {
		if rec.Questions[0] != '[' {
			return fmt.Errorf(`%w: "questions" must be an array of strings, found %s`, ErrBadQuestion, kind(rec.Questions))
		}
		if err := json.Unmarshal(rec.Questions, &r.items); err != nil {
			return fmt.Errorf(`%w: "questions": %w`, ErrMalformedJSON, err)
		}
	}
	qs := make([]string, len(r.questions), len(r.questions)+1+len(r.items))
	copy(qs, r.questions)
	if len(rec.Question) > 0 {
		q, err := question(rec.Question, -1)
		if err != nil {
			return err
		}
		qs = appendUnique(qs, q)
	}
	for i, item := range r.items {
		q, err := question(item, i)
		if err != nil {
			return err
		}
		qs = appendUnique(qs, q)
	}
	if len(qs) == 0 {
		return fmt.Errorf(`%w: the record has no "question" or "questions" and no global questions were given`, ErrNoQuestion)
	}
	doc.Context, doc.Questions = ctx, qs
	return nil
}

// question decodes and trims one question: "question" when index is -1,
// else "questions"[index]. An empty question is returned as "": it is not
// asked, and gets an error record of its own.
func question(raw json.RawMessage, index int) (string, error) {
	name := `"question"`
	if index >= 0 {
		name = fmt.Sprintf(`"questions"[%d]`, index)
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

// cleanQuestions trims the global questions and drops empty ones and
// duplicates, so that every document's list starts from the same clean base.
func cleanQuestions(in []string) []string {
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
