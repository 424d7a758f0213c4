// Package shard owns the program's records on disk: the streaming JSONL
// reader that validates input documents and numbers them, and the writer of
// answers.jsonl. It imports only the standard library and knows nothing of
// the model or the pipeline.
package shard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DefaultMaxLineBytes is the longest input line accepted when
// Options.MaxLineBytes is zero.
const DefaultMaxLineBytes = 16 << 20

// Options configures a Reader.
type Options struct {
	// MaxLineBytes bounds one input line, not counting its "\n" or "\r\n".
	// A longer line becomes a document with ErrLineTooLong and is skipped
	// without being held in memory. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Questions are asked of every document, before the document's own.
	// They are trimmed; empty ones and duplicates are dropped.
	Questions []string
}

// Document is one non-blank input line. When Err is set the line is bad:
// Seq, Line and, where it could be read, ID are still filled in so that an
// error record takes the document's place in the output.
type Document struct {
	// Seq is the 0-based position among the non-blank input lines, good or
	// bad; it is the document's identity for ordering and resume.
	Seq int64
	// Line is the 1-based line number in the input, blank lines included.
	Line int64
	// ID is the record's "id" as compact JSON when it is a string or a
	// number, the line number when the record has none, and nil when the
	// line is too broken to tell (malformed JSON, too long, bad id).
	ID json.RawMessage
	// Context is the text questions are asked of.
	Context string
	// Questions are the global questions followed by the record's
	// "question" and "questions", trimmed, duplicates removed, order kept.
	// A record's empty question stays in the list as "" (the pipeline
	// gives it an error record; the other questions are answered).
	Questions []string
	// Err wraps one of the Err* sentinels with a message for the user.
	Err error
	// Bytes is the length of the document's line in the input, its line
	// end included (and the byte-order mark, for the first line): the unit
	// progress counts work in. A Span's Bytes is the sum over its documents.
	Bytes int64
}

// Sentinels for bad input lines, found in Document.Err with errors.Is.
var (
	ErrMalformedJSON    = errors.New("malformed JSON")
	ErrMissingContext   = errors.New(`missing "context"`)
	ErrEmptyContext     = errors.New(`empty "context"`)
	ErrContextNotString = errors.New(`"context" is not a string`)
	ErrInvalidUTF8      = errors.New("invalid UTF-8")
	ErrLineTooLong      = errors.New("line too long")
	ErrNoQuestion       = errors.New("no question")
	ErrBadID            = errors.New(`bad "id"`)
	ErrBadQuestion      = errors.New("bad question")
)

// Reader streams Documents from JSONL input. Its memory is bounded by the
// longest accepted line: buffers are reused, and nothing is kept per document.
// A Reader is not safe for concurrent use.
type Reader struct {
	br        *bufio.Reader
	max       int
	questions []string

	buf        []byte // the current line, reused; at most max+2 bytes are kept
	tooLong    bool   // the current line went past max and was dropped
	hasText    bool   // a dropped line had non-whitespace bytes
	rec        rawRecord
	items      []json.RawMessage // the "questions" array, reused
	lineBytes  int64             // bytes of the current line as read, its end included
	lineNo     int64
	seq        int64
	bomChecked bool
	err        error // sticky: I/O error or io.EOF
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opt Options) *Reader {
	max := opt.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &Reader{
		br:        bufio.NewReaderSize(r, readBufferSize),
		max:       max,
		questions: cleanQuestions(opt.Questions),
	}
}

// readBufferSize is the bufio chunk; lines longer than it are assembled in
// Reader.buf, so it bounds nothing but the cost of a read call.
const readBufferSize = 64 << 10

// Answer is one candidate span of a document's context, offsets in code points.
type Answer struct {
	Answer     string
	Score      float64
	Start, End int
}

// AnswerRecord is the best answer to one question about one document.
// Answers holds the top-k candidates and is written only when non-empty,
// which the caller arranges for top-k > 1.
type AnswerRecord struct {
	ID         json.RawMessage
	Question   string
	Answer     string
	Score      float64
	Start, End int
	Windows    int
	Answers    []Answer
}

// ErrorRecord takes the place of answers for a document (or one question of
// it) that could not be answered. Question is written only when non-empty.
type ErrorRecord struct {
	ID       json.RawMessage
	Line     int64
	Question string
	Error    string
}

// ErrNotFinite reports a NaN or infinite score, which JSON cannot carry.
var ErrNotFinite = errors.New("score is not a finite number")

// Writer writes answers.jsonl: one JSON object per line, keys in a fixed
// order, no HTML escaping, floats as encoding/json prints them. Output is
// buffered until Flush. A Writer is not safe for concurrent use.
type Writer struct {
	bw   *bufio.Writer
	line []byte       // the record being built, reused
	id   bytes.Buffer // the record's compacted id, reused
	err  error        // sticky: the first write error
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
}
