// Package journal makes a run resumable. Records are written strictly in
// input order (document Seq 0, 1, 2, ...), so the whole resume state is two
// numbers: every document with Seq < Done is in the output, and the output's
// first Bytes bytes are exactly those records. The state lives in a small JSON
// file beside the output (<output>.journal), replaced atomically, whose size
// does not depend on how many documents were written.
//
// The protocol: Checkpoint fsyncs the output first and only then replaces the
// journal (write <journal>.tmp, fsync, rename, fsync the directory), so the
// journal never claims bytes that are not durable. Open (for --resume) checks
// the fingerprint of the input, model, settings and questions, and truncates
// the output to Bytes, dropping records a crash left written but not
// journaled; the caller then skips documents with Seq < Done and appends.
//
// The package imports only the standard library and three leaf packages
// (fingerprint: what a run depends on, how two differ and what a resume
// compares, such as the output's length against Bytes; readstate:
// where reading stands and the block a rank owns; errkind); it knows
// nothing of the record format or the pipeline.
package journal

import (
	"sync"
	"time"

	"qa-shard/internal/errkind"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/readstate"
)

// Version is the journal format written by this package. Open refuses
// formats newer than it or older than oldestVersion, so a future format
// change cannot be misread as this one. Version 5 added AnswersHash
// (version 4 journals are read as they are: without it).
const Version = 5

// oldestVersion is the oldest journal format Open still reads: version 3
// stored the rank's block as a string (Fingerprint.LegacyShard); a resumed
// version-3 journal is rewritten as version 4.
const oldestVersion = 3

// Suffix is appended to the output path to name its journal.
const Suffix = ".journal"

// Sentinels, found with errors.Is; the returned errors wrap them with a
// sentence for the user that says what to do.
var (
	// ErrExists: a fresh run would overwrite an output or journal.
	ErrExists = errkind.NewUser("output already exists")
	// ErrNoJournal: --resume was asked but there is no journal to resume.
	ErrNoJournal = errkind.NewUser("no journal to resume")
	// ErrMismatch: the journal was written for a different input, model,
	// settings or questions; the error is a *MismatchError.
	ErrMismatch = errkind.NewUser("the run changed since the journal was written")
	// ErrVersion: the journal was written in another format.
	ErrVersion = errkind.NewUser("unsupported journal version")
	// ErrCorrupt: the journal cannot be read as a journal.
	ErrCorrupt = errkind.NewUser("corrupt journal")
	// ErrOutputShort: the output is shorter than the journal says.
	ErrOutputShort = errkind.NewUser("output shorter than the journal says")
	// ErrInvalid: the caller broke the contract (a checkpoint going
	// backwards, a checkpoint after Finish, a non-regular output file).
	ErrInvalid = errkind.NewInternal("invalid use of the journal")
)

// State is the journal's content.
type State struct {
	Version     int                     `json:"version"`
	Fingerprint fingerprint.Fingerprint `json:"fingerprint"`
	// Done counts the documents fully written: Seq 0 .. Done-1.
	Done int64 `json:"done"`
	// Bytes is the length of the output covering exactly those documents.
	Bytes int64 `json:"bytes"`
	// LogitsParts counts completed logits part files; 0 if none.
	LogitsParts int `json:"logits_parts"`
	// LogitsDigest chains the size and the Parquet footer's SHA-256 of
	// each of them, in order (package logits computes it as parts are
	// sealed), so a resume proves the logits folder holds exactly these
	// parts by reading their footers, a few kilobytes each, rather than
	// the logits. Its size does not grow with the parts.
	LogitsDigest string `json:"logits_digest,omitempty"`
	// Logits is where the logits parts are: the folder relative to the
	// journal's own folder (absolute when it is on another tree), so merge
	// finds every rank's folder whatever name it is given for the merged
	// one. "" without logits, and in journals written before it existed.
	Logits string `json:"logits_folder,omitempty"`
	// AnswersHash is the SHA-256 state (crypto/sha256's marshalled form,
	// hex) after the answers file's first Bytes bytes, for a JSONL answers
	// file (plain or compressed): what a check of the answers compares
	// them with, and what a resume goes on hashing from. "" for a Parquet
	// folder, and in journals written before it existed.
	AnswersHash string `json:"answers_sha256_state,omitempty"`
	// AnswerParts counts completed answers part files when the answers
	// are a Parquet folder; 0 otherwise.
	AnswerParts int `json:"answer_parts,omitempty"`
	// AnswerDigest chains those parts as LogitsDigest chains the logits
	// parts, so that merge and a resume prove each is the part sealed.
	// "" for JSONL answers, and in journals written before it existed.
	AnswerDigest string `json:"answer_digest,omitempty"`
	// Records and Errors count the records (answers and error records) and
	// the error records among them in those documents, so a resumed run
	// judges --max-errors on the whole output.
	Records int64 `json:"records,omitempty"`
	Errors  int64 `json:"errors,omitempty"`
	// Input says where the input continues and what was read of it.
	Input readstate.State `json:"input"`
	// Complete is set by Finish: the run ended and nothing is left to do.
	Complete bool `json:"complete"`
	// Run identifies the run that started this output (random, made by
	// Create); its logits parts carry it, so parts of another run are
	// told from this one's.
	Run string `json:"run,omitempty"`
	// Updated is when the state was written (UTC), for people reading it.
	Updated time.Time `json:"updated"`
	// Checksum is "sha256=<hex>" of the journal's JSON without it: a
	// journal edited or damaged into other valid JSON is refused as
	// ErrCorrupt, never trusted.
	Checksum string `json:"checksum"`
}

// Journal records a run's progress. Its methods are safe for concurrent use
// (a signal handler may race the write stage), though a run normally has one
// writer.
type Journal struct {
	mu   sync.Mutex
	path string // <output>.journal
	fs   fileSystem
	last State // the state most recently made durable
}

// Syncer is what Checkpoint needs of the output: *os.File satisfies it. It
// is an interface so tests can observe that the output is synced before the
// journal is replaced.
type Syncer interface {
	Sync() error
}

// Path returns the journal path for an output path.
func Path(outputPath string) string { return outputPath + Suffix }
