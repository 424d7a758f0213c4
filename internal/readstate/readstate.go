// Package readstate is where reading a run's input stands, as plain
// values: the next document's position and what was read of each file,
// with its identity and a hash. Package input produces it and resumes
// from it; the journal stores it (so input needs no journal, and the
// journal no input).
package readstate

// State says where a process's input continues and what it has read, so
// a resumed run neither redoes nor skips a document and verifies only what
// it relies on. Package input writes it; the journal stores it.
type State struct {
	// Next is where the first document not in the output starts.
	Next Position `json:"next"`
	// Files are the files this process read so far, in order; the last
	// one holds Next. Empty means nothing was read: start at the block.
	Files []File `json:"files,omitempty"`
}

// Position is a place in the run's input: a file (its index in the run's
// order) and a byte offset in its text (after decompression) or, for
// Parquet, a row.
type Position struct {
	File   int   `json:"file"`
	Offset int64 `json:"offset"`
}

// File is one file's part as read: its identity when it was read, and
// a SHA-256 of what was consumed between From and To (the text for JSONL,
// the column chunks of the row groups for Parquet).
type File struct {
	File    int    `json:"file"`
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	SHA256  string `json:"sha256"`
}
