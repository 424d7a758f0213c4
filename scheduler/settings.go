package scheduler

import (
	"fmt"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// recordSettings are the settings a document is answered with: the run's
// with the record's own (record.Settings, read when the run names a
// settings field) in their place. A record cannot ask for longer windows
// than the run's --max-seq-len: the model's positions, the replicas'
// batch shapes and TensorRT's profile were checked and built for it.
func recordSettings(run qa.Settings, own *record.Settings) (qa.Settings, error) {
	if own == nil {
		return run, nil
	}
	s := run
	override(&s.TopK, own.TopK)
	override(&s.DocStride, own.DocStride)
	override(&s.MaxAnswerLen, own.MaxAnswerLen)
	override(&s.MaxSeqLen, own.MaxSeqLen)
	override(&s.HandleImpossible, own.HandleImpossibleAnswer)
	override(&s.AlignToWords, own.AlignToWords)
	override(&s.LegacyTopK, own.LegacyTopK)
	if s.MaxSeqLen > run.MaxSeqLen {
		return run, fmt.Errorf("%w: max_seq_len %d is above this run's --max-seq-len %d, the longest window its model and replicas were set up for: start the run with --max-seq-len %d or more",
			record.ErrBadSettings, s.MaxSeqLen, run.MaxSeqLen, s.MaxSeqLen)
	}
	if err := s.Validate(); err != nil {
		return run, fmt.Errorf("%w: %w", record.ErrBadSettings, err)
	}
	return s, nil
}

// override sets *to to *own when the record gives it (own is not nil).
func override[T any](to, own *T) {
	if own != nil {
		*to = *own
	}
}
