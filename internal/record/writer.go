package record

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// The records are built by hand rather than with encoding/json so that key
// order is fixed by this file, not by struct layout, and no reflection or
// allocation happens per record.

// WriteAnswer writes one answer line.
func (w *Writer) WriteAnswer(r AnswerRecord) error {
	if w.err != nil {
		return w.err
	}
	b := w.line[:0]
	b = append(b, `{"id":`...)
	b, err := w.appendID(b, r.ID)
	if err != nil {
		return err
	}
	if b, err = w.appendKeep(b, r.Keep); err != nil {
		return err
	}
	b = appendKeyString(b, "question", r.Question)
	if r.QuestionID != "" {
		b = appendKeyString(b, "question_id", r.QuestionID)
	}
	b = append(b, ',')
	if b, err = appendCandidate(b, r.Answer, r.Score, r.Start, r.End, r.SpanLogit); err != nil {
		return fmt.Errorf("record: answer for id %s question %q: %w", w.id.Bytes(), r.Question, err)
	}
	b = append(b, `,"null_logit":`...)
	if b, err = appendFloat(b, r.NullLogit); err != nil {
		return fmt.Errorf("record: null logit for id %s question %q: %w", w.id.Bytes(), r.Question, err)
	}
	b = append(b, `,"windows":`...)
	b = strconv.AppendInt(b, int64(r.Windows), 10)
	if len(r.Answers) > 0 {
		b = append(b, `,"answers":[`...)
		for i, a := range r.Answers {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if b, err = appendCandidate(b, a.Answer, a.Score, a.Start, a.End, a.SpanLogit); err != nil {
				return fmt.Errorf("record: answer %d for id %s question %q: %w", i, w.id.Bytes(), r.Question, err)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return w.emit(append(b, "}\n"...))
}

// WriteError writes one error line.
func (w *Writer) WriteError(r ErrorRecord) error {
	if w.err != nil {
		return w.err
	}
	b := w.line[:0]
	b = append(b, `{"id":`...)
	b, err := w.appendID(b, r.ID)
	if err != nil {
		return err
	}
	if b, err = w.appendKeep(b, r.Keep); err != nil {
		return err
	}
	b = appendKeyString(b, "file", r.Pos.File)
	if r.Pos.Row {
		b = append(b, `,"row":`...)
	} else {
		b = append(b, `,"offset":`...)
	}
	b = strconv.AppendInt(b, r.Pos.At, 10)
	if r.Question != "" {
		b = appendKeyString(b, "question", r.Question)
	}
	if r.QuestionID != "" {
		b = appendKeyString(b, "question_id", r.QuestionID)
	}
	b = appendKeyString(b, "error", r.Error)
	return w.emit(append(b, "}\n"...))
}

// Flush writes buffered records to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("record: writing answers: %w", err)
	}
	return w.err
}

func (w *Writer) emit(b []byte) error {
	w.line = b
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("record: writing answers: %w", err)
	}
	return w.err
}

// appendID writes an id as compact JSON, or null when there is none (a line
// too broken to name one). It is validated because a stray byte from a
// caller would break the line structure of the whole file.
func (w *Writer) appendID(b []byte, id json.RawMessage) ([]byte, error) {
	w.id.Reset()
	if len(id) == 0 {
		w.id.WriteString("null")
	} else if err := json.Compact(&w.id, id); err != nil {
		return b, fmt.Errorf("record: %w: %q is not valid JSON: %w", ErrBadID, id, err)
	}
	return append(b, w.id.Bytes()...), nil
}

// appendKeep writes the kept fields after the id, "null" where a record
// has none (an error record for a line too broken to read them).
func (w *Writer) appendKeep(b []byte, keep []json.RawMessage) ([]byte, error) {
	for i, name := range w.keep {
		b = appendKeyString(b, name, "")
		b = b[:len(b)-2] // appendKeyString wrote "": the value follows
		if i >= len(keep) || len(keep[i]) == 0 {
			b = append(b, "null"...)
			continue
		}
		if !json.Valid(keep[i]) {
			return b, fmt.Errorf("record: %w: %q: %q is not valid JSON", ErrBadField, name, keep[i])
		}
		b = append(b, keep[i]...)
	}
	return b, nil
}

func appendCandidate(b []byte, answer string, score float64, start, end int, spanLogit float64) ([]byte, error) {
	b = append(b, `"answer":`...)
	b = appendString(b, answer)
	b = append(b, `,"score":`...)
	var err error
	if b, err = appendFloat(b, score); err != nil {
		return b, err
	}
	b = append(b, `,"start":`...)
	b = strconv.AppendInt(b, int64(start), 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, int64(end), 10)
	b = append(b, `,"span_logit":`...)
	return appendFloat(b, spanLogit)
}

func appendKeyString(b []byte, key, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendFloat prints f as encoding/json does: the shortest representation
// that round-trips, in plain decimal unless the exponent is below -6 or at
// least 21, so output is identical to what Python's json or jq would read
// back and byte-stable across runs.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("%w: %v", ErrNotFinite, f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 becomes 1e-7, as in JavaScript and encoding/json.
		if m := len(b) - n; m >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b, nil
}

// appendString quotes s as JSON without HTML escaping: quotes, backslashes
// and control characters are escaped, as are U+2028 and U+2029 (encoding/json
// does too, so output stays valid JavaScript); invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendJSONString appends s as a JSON string, as the Writer quotes.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }
