package journal

import "qa-shard/internal/readstate"

// Progress is what a checkpoint records.
type Progress struct {
	Done         int64  // documents written
	Bytes        int64  // length of the answers file covering them (0 for a folder)
	AnswersHash  string // the SHA-256 state after those bytes (State.AnswersHash)
	LogitsParts  int    // sealed logits parts
	LogitsDigest string // their digest (State.LogitsDigest)
	Logits       string // their folder (State.Logits)
	AnswerParts  int    // sealed answers parts (a Parquet answers folder)
	AnswerDigest string // their digest (State.AnswerDigest)
	Records      int64  // records in those documents (answers and errors)
	Errors       int64  // error records among them
	Input        readstate.State
}
