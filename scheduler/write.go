package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"qa-shard/internal/errkind"
	"qa-shard/internal/record"
	"qa-shard/qa"
)

// ErrWrite marks a failure to hand a document's records to the sinks: its
// records may be partly written, so what was written since the last
// checkpoint must not be checkpointed.
var ErrWrite = errkind.NewInternal("writing the records")

// writeStage restores input order: documents finish in any order, and
// each waits in a reorder buffer, keyed by Seq, until all before it are
// written. The in-flight budget bounds that buffer. It hands each
// document's records to the sinks, releases its budget and makes the
// written prefix durable every checkpoint interval.
type writeStage struct {
	answers    record.Sink
	logits     LogitsSink // nil: no logits kept
	checkpoint func(next int64) error
	interval   time.Duration
	first      int64               // Checkpoints.SkipBelow: the first Seq this run writes
	inflight   *semaphore.Weighted // the reader's
	progress   *progress
	observer   Observer

	next atomic.Int64 // first Seq not yet written
}

func newWriteStage(cfg Config, answers record.Sink, lg LogitsSink, inflight *semaphore.Weighted, prog *progress) *writeStage {
	return &writeStage{answers: answers, logits: lg, checkpoint: cfg.Checkpoint, interval: cfg.CheckpointInterval,
		first: cfg.SkipBelow, inflight: inflight, progress: prog, observer: cfg.Observer}
}

func (s *writeStage) run(ctx context.Context, done <-chan *docState) (Summary, error) {
	var sum Summary
	waiting := map[int64]*docState{}
	next := s.first
	s.next.Store(next)
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		var d *docState
		select {
		case <-ctx.Done():
			return sum, s.salvage(ctx, done, waiting, &next, &sum)
		case <-tick.C:
			if err := s.sync(next); err != nil {
				return sum, err
			}
			continue
		case v, ok := <-done:
			if !ok {
				if ctx.Err() != nil {
					return sum, ctx.Err()
				}
				if len(waiting) > 0 {
					return sum, fmt.Errorf("scheduler: %d documents never completed (first missing seq %d)", len(waiting), next)
				}
				return sum, nil
			}
			d = v
		}
		waiting[d.doc.Seq] = d
		if err := s.flush(waiting, &next, &sum); err != nil {
			return sum, err
		}
	}
}

// flush writes the documents of waiting that continue the written prefix.
func (s *writeStage) flush(waiting map[int64]*docState, next *int64, sum *Summary) error {
	for {
		d, ok := waiting[*next]
		if !ok {
			return nil
		}
		delete(waiting, *next)
		if err := s.emit(d, sum); err != nil {
			return fmt.Errorf("%w of document %d: %w", ErrWrite, d.doc.Seq, err)
		}
		*next++
		s.next.Store(*next)
		s.inflight.Release(d.weight)
		s.progress.addDoc()
	}
}

// salvage runs when the run is cancelled (a stop, or a failure elsewhere):
// the documents already complete that continue the written prefix are
// written, so a stop saves what is done without waiting for anything in
// flight (redone on resume). It returns the cancellation, or a failure to
// write.
func (s *writeStage) salvage(ctx context.Context, done <-chan *docState, waiting map[int64]*docState, next *int64, sum *Summary) error {
	for {
		select {
		case d, ok := <-done:
			if ok {
				waiting[d.doc.Seq] = d
				continue
			}
		default:
		}
		if err := s.flush(waiting, next, sum); err != nil {
			return err
		}
		return ctx.Err()
	}
}

// sync makes the first next documents durable (Checkpoints.Checkpoint).
func (s *writeStage) sync(next int64) error {
	if s.checkpoint == nil {
		return nil
	}
	if err := s.checkpoint(next); err != nil {
		return fmt.Errorf("checkpoint at document %d: %w", next, err)
	}
	return nil
}

// emit writes one document's records: an error record for a bad line, or
// one answer (or error) record per question.
func (s *writeStage) emit(d *docState, sum *Summary) error {
	sum.Documents++
	answers0, errors0 := sum.Pairs, sum.RecordErrors
	defer func() { s.observer.Records(int(sum.Pairs-answers0), int(sum.RecordErrors-errors0)) }()
	doc := d.doc
	if doc.Err != nil {
		sum.RecordErrors++
		s.progress.addError()
		return s.answers.WriteError(record.ErrorRecord{ID: doc.ID, Keep: doc.Keep, Pos: doc.Pos, Error: doc.Err.Error()})
	}
	for qi, q := range d.questions {
		if q.err != nil {
			sum.RecordErrors++
			s.progress.addError()
			if err := s.answers.WriteError(record.ErrorRecord{ID: doc.ID, Keep: doc.Keep, Pos: doc.Pos, Question: q.text, QuestionID: doc.QuestionID(qi), Error: q.err.Error()}); err != nil {
				return err
			}
			continue
		}
		sum.Pairs++
		rec := answerRecord(doc, q, d.settings)
		rec.QuestionID = doc.QuestionID(qi)
		if err := s.answers.WriteAnswer(rec); err != nil {
			return err
		}
		if s.logits != nil {
			if err := s.logits.Write(s.logitRows(d, qi)); err != nil {
				return fmt.Errorf("writing logits of %s: %w", doc.Pos, err)
			}
		}
	}
	return nil
}

func answerRecord(doc record.Document, q questionState, settings qa.Settings) record.AnswerRecord {
	answers := qa.Answers(doc.Context, q.results, settings)
	rec := record.AnswerRecord{ID: doc.ID, Keep: doc.Keep, Question: q.text, Windows: len(q.windows)}
	// No answer at all (every span dropped) is the empty answer: its span
	// logit is the null logit, as for the impossible answer.
	rec.NullLogit = qa.NullLogit(q.results)
	rec.SpanLogit = rec.NullLogit
	if len(answers) > 0 {
		a := answers[0]
		rec.Answer, rec.Score, rec.Start, rec.End, rec.SpanLogit = a.Text, a.Score, a.Start, a.End, a.SpanLogit
	}
	if settings.TopK > 1 {
		rec.Answers = make([]record.Answer, len(answers))
		for i, a := range answers {
			rec.Answers[i] = record.Answer{Answer: a.Text, Score: a.Score, Start: a.Start, End: a.End, SpanLogit: a.SpanLogit}
		}
	}
	return rec
}

// logitRows lays out one question's windows for the logits file, with
// what is needed to decode them again: ids, sequence and word ids, and
// code-point offsets into the question (sequence 0) or context (1).
func (s *writeStage) logitRows(d *docState, qi int) []record.LogitsRow {
	q := d.questions[qi]
	rows := make([]record.LogitsRow, len(q.windows))
	for wi, w := range q.windows {
		n := w.Len()
		row := record.LogitsRow{
			ID: d.doc.ID, Keep: d.doc.Keep, Pos: d.doc.Pos, QuestionIndex: int32(qi), Question: q.text, Window: int32(wi),
			InputIDs: w.IDs, SequenceIDs: make([]int8, n), WordIDs: make([]int32, n),
			OffsetStart: make([]int32, n), OffsetEnd: make([]int32, n),
			StartLogits: q.raw[wi].Start, EndLogits: q.raw[wi].End,
		}
		for i := range n {
			seq, word, off := w.Position(d.ctx, i)
			row.SequenceIDs[i], row.WordIDs[i] = seq, word
			row.OffsetStart[i], row.OffsetEnd[i] = off.Start, off.End
		}
		rows[wi] = row
	}
	return rows
}
