package record

import "encoding/json"

// LogitsRow is one model window of one (document, question) pair: the
// raw logits the scheduler hands over and output/logits stores as one
// Parquet row. The per-token columns (InputIDs through
// EndLogits) all have one entry per token of the window, special tokens
// included, and must have the same length.
type LogitsRow struct {
	// ID is the document's id as compact JSON of the run's id kind
	// (the run's Schema.ID): stored as that type, the same as in the answers.
	ID json.RawMessage
	// Keep are the kept fields as compact JSON.
	Keep []json.RawMessage
	// Pos is where the document is in the input: with QuestionIndex and
	// Window it is the row's unique key, across ranks too.
	Pos           Position
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
