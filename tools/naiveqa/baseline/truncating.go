// Package baseline is the reader qa-shard is measured against: the loop a
// typical script writes around a Hugging Face model, one (document,
// question) at a time, batch of one, the context truncated so that the pair
// fits the model's 512 tokens, the answer decoded from that single window.
// Whatever lies beyond the cut is never read.
package baseline

import (
	"context"
	"fmt"

	"qa-shard/qa"
)

// Runner runs one batch through a model (a *worker.Replica).
type Runner interface {
	Run(ctx context.Context, b qa.Batch) (qa.Logits, error)
}

// Encoder tokenizes text (a *tokenizer.Tokenizer).
type Encoder interface {
	Encode(text string) qa.Tokens
}

// Truncating answers with the first MaxLen tokens of [CLS] question [SEP]
// context [SEP] only; decoding is qa-shard's own (Hugging Face's) with
// Settings, which should be qa.DefaultSettings but for the length.
type Truncating struct {
	Model    Runner
	Tok      Encoder
	Template qa.Template
	MaxLen   int
	Settings qa.Settings
}

// Result is one answer and what the reader saw to give it.
type Result struct {
	Answer qa.Answer
	Found  bool // false when decoding gave no span
	// Fed is the window's length in tokens; Kept and Total are the
	// context tokens it held and the context's length.
	Fed, Kept, Total int
}

// Answer reads the first window of the pair and decodes its best span.
func (t Truncating) Answer(ctx context.Context, question, text string) (Result, error) {
	s := t.Settings
	s.MaxSeqLen, s.DocStride = t.MaxLen, 0
	q, c := t.Tok.Encode(question), t.Tok.Encode(text)
	res := Result{Total: c.Len()}
	if keep := t.MaxLen - q.Len() - t.Template.Added(); c.Len() > keep && keep > 0 {
		first := c.FirstOffsets
		if first != nil {
			first = first[:keep]
		}
		c = qa.Tokens{IDs: c.IDs[:keep], Offsets: c.Offsets[:keep], Words: c.Words[:keep], FirstOffsets: first}
	}
	ws, err := qa.Windows(q, c, t.Template, s)
	if err != nil {
		return res, err
	}
	w := ws[0]
	res.Fed, res.Kept = w.Len(), w.To-w.From
	b := qa.Batch{Rows: 1, Len: w.Len(), InputIDs: make([]int64, w.Len()), AttentionMask: make([]int64, w.Len()), TypeIDs: make([]int64, w.Len())}
	for i, id := range w.IDs {
		b.InputIDs[i], b.AttentionMask[i], b.TypeIDs[i] = int64(id), 1, int64(w.TypeIDs[i])
	}
	l, err := t.Model.Run(ctx, b)
	if err != nil {
		return res, fmt.Errorf("truncating reader: %w", err)
	}
	dec, err := qa.DecodeWindow(w, c, t.Template, l.Start, l.End, s)
	if err != nil {
		return res, fmt.Errorf("truncating reader: %w", err)
	}
	if as := qa.Answers(text, []qa.WindowResult{dec}, s); len(as) > 0 {
		res.Answer, res.Found = as[0], true
	}
	return res, nil
}
