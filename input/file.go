// Package input finds a run's input files (files, folders, globs, standard
// input), reads them in one global order whatever their format (JSONL,
// gzip or zstd compressed JSONL, Parquet), splits them among ranks by
// bytes, and fingerprints what it reads while it streams, so a resumed run
// verifies only what it relies on. It yields record.Documents; it knows
// nothing of the model, the pipeline or the outputs.
package input

import (
	"os"
	"time"

	"qa-shard/internal/errkind"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
)

// File is one input file of a run, in the run's order.
type File struct {
	// Path opens it ("-" is standard input).
	Path string
	// Name identifies it in positions, default ids, error records and the
	// journal: its path under the --input that found it (see Find).
	Name    string
	Size    int64 // -1 for standard input
	ModTime time.Time
	// Format comes from the extension, corrected by the magic bytes
	// (Sniff) before the file is split or read.
	Format  format.Format
	sniffed bool
	id      fileID // who it is whatever path reached it (Find refuses a file twice)
	// stream, for Path "-", is the pipe read instead of standard input
	// (--input names a FIFO or a shell's <(...)); nil: standard input.
	stream *os.File
}

// packed: gzip or zstd compressed text, whose documents are counted as
// read (count.go).
func (f File) packed() bool { return f.Format == format.Gzip || f.Format == format.Zstd }

// Sentinels, found with errors.Is; main maps them to exit codes by
// their kind (2, and 75 for ErrGrew).
var (
	// ErrInput: an --input that cannot be used (missing, unreadable, a
	// folder without inputs, a Parquet file without the context column).
	ErrInput = errkind.NewUser("input")
	// ErrCorrupt: compressed data that cannot be decompressed; the error
	// names the file and the compressed byte offset.
	ErrCorrupt = errkind.NewUser("corrupt input")
	// ErrChanged: --resume found an input that changed since the journal
	// was written (size, modification time or the content it verified);
	// package fingerprint's checks of a resume decide it, so it is theirs.
	ErrChanged = fingerprint.ErrChanged
	// ErrGrew: an input file grew after the run had read it to its end
	// (still being written): what was appended is not answered, so the
	// run is not complete; --resume answers it.
	ErrGrew = errkind.NewResumable("an input file grew after it was read")
)
