package journal

// InputState says where a process's input continues and what it has read,
// so a resumed run neither redoes nor skips a document and verifies only
// what it relies on. It is plain data, written by the input package.
type InputState struct {
	// Next is where the first document not in the output starts.
	Next Position `json:"next"`
	// Files are the files this process read so far, in order; the last
	// one holds Next. Empty means nothing was read: start at the block.
	Files []FileRead `json:"files,omitempty"`
}

// Position is a place in the run's input: a file (its index in the run's
// order) and a byte offset in its text (after decompression) or, for
// Parquet, a row.
type Position struct {
	File   int   `json:"file"`
	Offset int64 `json:"offset"`
}

// FileRead is one file's part as read: its identity when it was read, and
// a SHA-256 of what was consumed between From and To (the text for JSONL,
// the column chunks of the row groups for Parquet).
type FileRead struct {
	File    int    `json:"file"`
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	SHA256  string `json:"sha256"`
}

// Progress is what a checkpoint records.
type Progress struct {
	Done         int64  // documents written
	Bytes        int64  // length of the answers file covering them (0 for a folder)
	LogitsParts  int    // sealed logits parts
	LogitsDigest string // their digest (State.LogitsDigest)
	Logits       string // their folder (State.Logits)
	AnswerParts  int    // sealed answers parts (a Parquet answers folder)
	Records      int64  // records in those documents (answers and errors)
	Errors       int64  // error records among them
	Input        InputState
}
