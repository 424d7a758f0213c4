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
	"qa-shard/internal/errkind"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
)

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
