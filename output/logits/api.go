// Package logits writes and reads the raw-logits sidecar: one Parquet row per
// model window with everything needed to decode answers again (token ids,
// which sequence and word each token belongs to, character offsets, and the
// start/end logits) without re-running the model.
//
// The file opens in one line with pandas, polars or pyarrow
// (pd.read_parquet(path)); every per-token column is a standard Parquet LIST,
// so it arrives as an array per row. The id column has the type the
// answers give ids (a string or an integer), so the two join directly.
package logits

import (
	"encoding/json"

	"qa-shard/internal/errkind"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
)

// Row is one model window of one (document, question) pair, as the
// scheduler hands it over. The per-token columns (InputIDs through
// EndLogits) all have one entry per token of the window, special tokens
// included, and must have the same length.
type Row struct {
	// ID is the document's id as compact JSON of the run's id kind
	// (Options.ID): stored as that type, the same as in the answers.
	ID json.RawMessage
	// Keep are the kept fields (Options.Keep) as compact JSON.
	Keep []json.RawMessage
	// Pos is where the document is in the input: with QuestionIndex and
	// Window it is the row's unique key, across ranks too.
	Pos           record.Position
	QuestionIndex int32
	Question      string
	Window        int32
	InputIDs      []int32
	// SequenceIDs is -1 for special tokens, 0 for question and 1 for
	// context tokens; int8 because that is all it needs, and readers see
	// an int8 column rather than a wider one.
	SequenceIDs []int8
	WordIDs     []int32 // -1 for none
	// OffsetStart and OffsetEnd are half-open code-point offsets into the
	// question (sequence 0) or the context (sequence 1); 0 for specials.
	OffsetStart []int32
	OffsetEnd   []int32
	StartLogits []float32
	EndLogits   []float32
}

// Options say the types of the columns that depend on the run.
type Options struct {
	ID        record.Kind   // record.String or record.Int
	Keep      []string      // kept fields, as columns after the position
	KeepKinds []record.Kind // their kinds
	// Run names the run in every file's metadata (RunKey), so a resume
	// tells this run's parts from another's ("": none).
	Run string
}

// RowsPerGroup is how many windows go into one row group. A window of 384
// tokens is about 11 KiB before compression, so a group is ~45 MiB in memory
// while it is built: big enough for efficient columnar reads, small enough
// that a writer per rank stays well under a GPU host's memory.
const RowsPerGroup = 4096

var (
	// ErrLengthMismatch reports a row whose per-token columns differ in length.
	ErrLengthMismatch = errkind.NewInternal("per-token columns differ in length")
	// ErrClosed reports use of a Writer after Close or Abort.
	ErrClosed = errkind.NewInternal("logits writer already closed")
)

// Writer streams rows to a Parquet file. The file is written under a
// temporary name and only renamed to its final name by Close, so a reader
// never mistakes the output of a crashed or aborted run for a complete file.
// A Writer is not safe for concurrent use.
type Writer struct {
	part   *partfolder.Part // written under a temporary name until Close
	pw     rowWriter
	closed bool
}

// FormatKey and FormatVersion are stored in the file's key/value metadata.
const (
	FormatKey = "qa_shard.logits.version"
	// Version 2: the id has the answers' type; file and offset (or row)
	// replace seq; kept fields follow.
	FormatVersion = "2"
)
