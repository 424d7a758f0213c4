// Package qa holds the question-answering task itself as pure functions:
// cutting a (question, context) pair into model windows exactly as Hugging
// Face's QuestionAnsweringPipeline does, decoding spans from start/end logits,
// and merging the answers of one document's windows. It imports no other
// package of the project and does no I/O.
package qa

// Span is a half-open [Start, End) range of Unicode code points in the
// original text, the unit Hugging Face's fast tokenizers report offsets in.
type Span struct {
	Start, End int32
}

// Tokens is one tokenized text (a question or a context) without special
// tokens: token ids, the code-point span of every token in the original text,
// and the index of the pre-tokenizer word each token came from (-1 for none).
type Tokens struct {
	IDs     []int32
	Offsets []Span
	Words   []int32
}

// Len is the number of tokens.
func (t Tokens) Len() int { return len(t.IDs) }
