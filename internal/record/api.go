// Package record owns the program's records: the streaming JSONL reader
// that validates input documents, maps their fields and places them, the
// run's schema (the type of ids and kept fields), the answer record's
// codec (the JSONL writer and its replay, the Parquet row layout, the
// reading of a record's fields from a JSON line or a Parquet row, and
// Sink, what records are written to), and the logits row a window's raw
// logits travel in. It imports only the standard library and knows
// nothing of files, the model or the pipeline.
package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"hash"
	"io"
	"strconv"

	"qa-shard/internal/errkind"
)

// DefaultMaxLineBytes is the longest input line accepted when
// Options.MaxLineBytes is zero.
const DefaultMaxLineBytes = 16 << 20

// Options configures a Stream.
type Options struct {
	// MaxLineBytes bounds one input line, not counting its "\n" or "\r\n".
	// A longer line becomes a document with ErrLineTooLong and is skipped
	// without being held in memory. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Questions are asked of every document, before the document's own.
	// They are trimmed; empty ones and duplicates are dropped.
	Questions []string
	// Fields says where a record keeps its id, context and questions, and
	// which fields are copied into the output.
	Fields Fields
	// Schema is the type of ids and kept fields in this run.
	Schema Schema
	// File names the input in positions and default ids ("stdin" if empty).
	File string
	// Base is the offset of the stream's first byte in the file's text: a
	// rank or a resumed run starts mid-file. A BOM is skipped only at 0.
	Base int64
	// End, when positive, ends the stream before the first line that
	// starts at or after it: the rest belongs to another rank.
	End int64
	// More, when set, is asked at the end of the text whether it grew
	// since (a file still being appended to): then reading goes on, and a
	// last line without its newline waits for the rest of it.
	More func() bool
	// Idle, when set, is called before the Stream reads on with no whole
	// line left in its buffer: a stream such as standard input may then
	// wait for its writer, and the caller may act on the pause (cut the
	// batch it has). It must not block.
	Idle func()
	// Tee, when set, hashes every byte the Stream consumes, in order,
	// blank and dropped lines included (the input's fingerprint). A hash
	// never fails, so nothing the Stream reads can be lost to it.
	Tee hash.Hash
}

// Position says where a document is: a byte offset into a JSONL file's
// text (after decompression), or a row of a Parquet file.
type Position struct {
	File string // the input's name (see input.File.Name)
	At   int64  // byte offset of the line, or row index
	Row  bool   // At is a Parquet row, not a byte offset
}

func (p Position) String() string {
	if p.Row {
		return p.File + " row " + strconv.FormatInt(p.At, 10)
	}
	return p.File + " offset " + strconv.FormatInt(p.At, 10)
}

// Document is one non-blank input line or row. When Err is set the record
// is bad: Seq, Pos and, where it could be read, ID are still filled in so
// that an error record takes the document's place in the output.
type Document struct {
	// Seq numbers the documents this process reads, good or bad, from 0 at
	// the start of its block (continued on resume); it is the document's
	// identity for ordering within the process.
	Seq int64
	// Pos is where the document is in the input: with several files or
	// ranks it is the only global identity, so error records carry it.
	Pos Position
	// Bytes is how much of the input (as stored: compressed bytes for a
	// compressed file, a row group's share for a Parquet row) this document
	// stands for: its line with its end and the blank lines (and BOM)
	// before it, so a process's documents add up to its share of the
	// input. Progress counts work in these bytes.
	Bytes int64
	// ID is the record's id as compact JSON of the run's id type (a string
	// or an integer, see Schema), the default id when the record has none,
	// and nil when the record is too broken to tell.
	ID json.RawMessage
	// Keep holds the kept fields (Fields.Keep), in order, as compact JSON
	// of their kinds (Schema.Keep); "null" where a record lacks one.
	Keep []json.RawMessage
	// Context is the text questions are asked of.
	Context string
	// Questions are the global questions followed by the record's own,
	// trimmed, duplicates removed, order kept. A record's empty question
	// stays in the list as "" (the pipeline gives it an error record; the
	// other questions are answered).
	Questions []string
	// QuestionIDs, when not nil, holds the id of each of Questions ("" for
	// one without, such as a global question): a SQuAD paragraph's
	// questions keep theirs (MapAsked).
	QuestionIDs []string
	// Settings are the record's own answer settings when the run reads
	// them (Fields.Settings) and the record has them; nil: the run's.
	Settings *Settings
	// Err wraps one of the Err* sentinels with a message for the user.
	Err error
}

// QuestionID is the id of question i, or "".
func (d *Document) QuestionID(i int) string {
	if i < len(d.QuestionIDs) {
		return d.QuestionIDs[i]
	}
	return ""
}

// Sentinels for bad input records, found in Document.Err with errors.Is.
var (
	ErrMalformedJSON    = errkind.NewInternal("malformed JSON")
	ErrMissingContext   = errkind.NewInternal("missing context")
	ErrEmptyContext     = errkind.NewInternal("empty context")
	ErrContextNotString = errkind.NewInternal("bad context")
	ErrInvalidUTF8      = errkind.NewInternal("invalid UTF-8")
	ErrLineTooLong      = errkind.NewInternal("line too long")
	ErrNoQuestion       = errkind.NewUser("no question")
	ErrBadID            = errkind.NewInternal("bad id")
	ErrBadQuestion      = errkind.NewInternal("bad question")
	ErrBadField         = errkind.NewInternal("bad kept field")
	ErrBadSettings      = errkind.NewInternal("bad settings") // the record's own settings (Fields.Settings)
)

// Stream decodes one JSONL text into its Documents, in order: what a run
// reads when its input is one JSONL stream (input.Reader joins one per
// part of many files, and is the scheduler's Source). Its memory is bounded by
// the longest accepted line: buffers are reused, and nothing is kept per
// document. A Stream is not safe for concurrent use.
type Stream struct {
	br  *bufio.Reader
	max int
	opt Options
	m   *Mapper

	buf     []byte // the current line, reused; at most max+2 bytes are kept
	tooLong bool   // the current line went past max and was dropped
	hasText bool   // a dropped line had non-whitespace bytes
	vals    []json.RawMessage
	offset  int64 // bytes consumed from the stream
	lastEnd int64 // offset after the last document
	seq     int64
	err     error // sticky: I/O error or io.EOF
}

// NewStream returns the Stream of the JSONL text r.
func NewStream(r io.Reader, opt Options) *Stream {
	max := opt.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	if opt.File == "" {
		opt.File = "stdin"
	}
	m := NewMapper(opt)
	return &Stream{
		br:   bufio.NewReaderSize(r, readBufferSize),
		max:  max,
		opt:  opt,
		m:    m,
		vals: make([]json.RawMessage, len(m.plan.paths)),
	}
}

// Offset is the position in the file's text after the last byte consumed:
// after Next returned a document, the end of its line.
func (r *Stream) Offset() int64 { return r.opt.Base + r.offset }

// readBufferSize is the bufio chunk; lines longer than it are assembled in
// Stream.buf, so it bounds nothing but the cost of a read call.
const readBufferSize = 64 << 10

// Answer is one candidate span of a document's context, offsets in code
// points. SpanLogit is the span's raw start_logit + end_logit (qa.Answer).
type Answer struct {
	Answer     string
	Score      float64
	Start, End int
	SpanLogit  float64
}

// Layout numbers the set of fields an answer record has. A run records it
// among its answer settings (output.AnswerSettings), so neither a
// resume nor a merge mixes records of two layouts in one output; raise it
// whenever a field is added or changes meaning. Layout 2 added
// question_id, span_logit and null_logit.
const Layout = 2

// AnswerRecord is the best answer to one question about one document.
// Answers holds the top-k candidates and is written only when non-empty,
// which the caller arranges for top-k > 1. QuestionID is the question's
// own id (a SQuAD question's "id"), written only when non-empty.
// SpanLogit and NullLogit are the raw logits of qa.Answer: the answer
// span's, and the smallest null (first-token) score of the windows.
type AnswerRecord struct {
	ID         json.RawMessage
	Keep       []json.RawMessage
	Question   string
	QuestionID string
	Answer     string
	Score      float64
	Start, End int
	SpanLogit  float64
	NullLogit  float64
	Windows    int
	Answers    []Answer
}

// ErrorRecord takes the place of answers for a document (or one question of
// it) that could not be answered. Question and QuestionID are written only
// when non-empty.
type ErrorRecord struct {
	ID         json.RawMessage
	Keep       []json.RawMessage
	Pos        Position
	Question   string
	QuestionID string
	Error      string
}

// ErrNotFinite reports a NaN or infinite score, which JSON cannot carry.
var ErrNotFinite = errkind.NewInternal("score is not a finite number")

// Writer writes JSONL answers: one JSON object per line, keys in a fixed
// order, no HTML escaping, floats as encoding/json prints them. Output is
// buffered until Flush. A Writer is not safe for concurrent use.
type Writer struct {
	bw   *bufio.Writer
	keep []string     // names of the kept fields, in order
	line []byte       // the record being built, reused
	id   bytes.Buffer // the record's compacted id, reused
	err  error        // sticky: the first write error
}

// NewWriter returns a Writer to w; keep names the kept fields that
// records carry (Fields.Keep), written after the id.
func NewWriter(w io.Writer, keep ...string) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10), keep: keep}
}
