package qa

// Batch is the model input of one forward pass: Rows windows, right-padded
// to Len tokens, row-major. It is a plain value so the scheduler, which
// builds batches, and the worker, which runs them, need not know each other.
type Batch struct {
	Rows, Len     int
	InputIDs      []int64
	AttentionMask []int64
	TypeIDs       []int64
}

// Tokens is the number of positions including padding.
func (b Batch) Tokens() int { return b.Rows * b.Len }

// Logits are a batch's start and end logits, Rows*Len values each,
// row-major, converted to float32 whatever the model's output type.
type Logits struct {
	Start, End []float32
}
