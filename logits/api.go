// Package logits writes and reads the raw-logits sidecar: one Parquet row per
// model window with everything needed to decode answers again (token ids,
// which sequence and word each token belongs to, character offsets, and the
// start/end logits) without re-running the model.
//
// The file opens in one line with pandas, polars or pyarrow
// (pd.read_parquet(path)); every per-token column is a standard Parquet LIST,
// so it arrives as an array per row.
package logits

import (
	"errors"

	"github.com/parquet-go/parquet-go"
)

// Row is one model window of one (document, question) pair. The per-token
// columns (InputIDs through EndLogits) all have one entry per token of the
// window, special tokens included, and must have the same length.
type Row struct {
	// Seq is the document's 0-based position among the input records; with
	// QuestionIndex and Window it is the row's unique key.
	Seq int64 `parquet:"seq"`
	// ID is the document id as compact JSON text ("\"abc\"" or "17"). Ids
	// may be strings or numbers of any precision, so JSON text is the only
	// single column that keeps them lossless and tells 17 from "17";
	// json.loads recovers the value, and the text equals the "id" written
	// to answers.jsonl byte for byte.
	ID            string  `parquet:"id"`
	QuestionIndex int32   `parquet:"question_index"`
	Question      string  `parquet:"question"`
	Window        int32   `parquet:"window"`
	InputIDs      []int32 `parquet:"input_ids,list"`
	// SequenceIDs is -1 for special tokens, 0 for question and 1 for
	// context tokens; int8 because that is all it needs, and readers see
	// an int8 column rather than a wider one.
	SequenceIDs []int8  `parquet:"sequence_ids,list"`
	WordIDs     []int32 `parquet:"word_ids,list"` // -1 for none
	// OffsetStart and OffsetEnd are half-open code-point offsets into the
	// question (sequence 0) or the context (sequence 1); 0 for specials.
	OffsetStart []int32   `parquet:"offset_start,list"`
	OffsetEnd   []int32   `parquet:"offset_end,list"`
	StartLogits []float32 `parquet:"start_logits,list"`
	EndLogits   []float32 `parquet:"end_logits,list"`
}

// RowsPerGroup is how many windows go into one row group. A window of 384
// tokens is about 11 KiB before compression, so a group is ~45 MiB in memory
// while it is built: big enough for efficient columnar reads, small enough
// that a writer per rank stays well under a GPU host's memory.
const RowsPerGroup = 4096

var (
	// ErrLengthMismatch reports a row whose per-token columns differ in length.
	ErrLengthMismatch = errors.New("per-token columns differ in length")
	// ErrClosed reports use of a Writer after Close or Abort.
	ErrClosed = errors.New("logits writer already closed")
)

// Writer streams rows to a Parquet file. The file is written under a
// temporary name and only renamed to its final name by Close, so a reader
// never mistakes the output of a crashed or aborted run for a complete file.
// A Writer is not safe for concurrent use.
type Writer struct {
	path   string // final name
	tmp    string // path + ".tmp", where rows go until Close
	f      file
	pw     *parquet.GenericWriter[Row]
	closed bool
}

// FormatKey and FormatVersion are stored in the file's key/value metadata.
const (
	FormatKey     = "qa_shard.logits.version"
	FormatVersion = "1"
)

// TempSuffix is appended to the final path while the file is being written.
const TempSuffix = ".tmp"
