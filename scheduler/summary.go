package scheduler

import (
	"fmt"
	"io"
	"time"

	"qa-shard/internal/words"

	"go.uber.org/zap"
)

// Summary is what a run did.
type Summary struct {
	Documents     int64 // input records, good or bad
	Pairs         int64 // (document, question) records written as answers
	Windows       int64
	Tokens        int64 // real tokens fed to the model
	PaddedTokens  int64 // positions fed to the model, padding included
	Batches       int64
	RecordErrors  int64 // error records written
	Wall          time.Duration
	ReplicaCounts map[string]int64 // windows per replica (by Name), search sessions that ran nothing left out
	Replicas      []ReplicaUse     // the same for people: labels, and which ran only while layouts were measured
	// Next is the Seq of the first document not written: every document
	// before it is in the output. Valid even when Run returns an error.
	Next        int64
	Interrupted bool // Stop was closed before the input ended
}

// PaddingPercent is the share of model positions that were padding.
func (s Summary) PaddingPercent() float64 {
	if s.PaddedTokens == 0 {
		return 0
	}
	return 100 * float64(s.PaddedTokens-s.Tokens) / float64(s.PaddedTokens)
}

// DocsPerSecond is the end-to-end document rate.
func (s Summary) DocsPerSecond() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Documents) / s.Wall.Seconds()
}

// Fields are the summary as structured log fields.
func (s Summary) Fields() []zap.Field {
	return []zap.Field{zap.Int64("documents", s.Documents), zap.Float64("docs_per_s", s.DocsPerSecond()), zap.Int64("answers", s.Pairs),
		zap.Int64("windows", s.Windows), zap.Int64("batches", s.Batches), zap.Int64("tokens", s.Tokens), zap.Float64("padding_percent", s.PaddingPercent()),
		zap.Int64("record_errors", s.RecordErrors), zap.Duration("wall", s.Wall), zap.Any("windows_per_replica", s.ReplicaCounts)}
}

// WriteTable prints the summary for a person, then extra lines (files,
// GPUs).
func (s Summary) WriteTable(w io.Writer, extra ...string) {
	fmt.Fprintf(w, "\nqa-shard summary\n")
	fmt.Fprintf(w, "  documents      %d (%.1f/s)\n", s.Documents, s.DocsPerSecond())
	fmt.Fprintf(w, "  answers        %d\n", s.Pairs)
	fmt.Fprintf(w, "  windows        %d in %s\n", s.Windows, words.Count(s.Batches, "batch", "batches"))
	fmt.Fprintf(w, "  tokens         %d (padding %.1f%%)\n", s.Tokens, s.PaddingPercent())
	fmt.Fprintf(w, "  record errors  %d\n", s.RecordErrors)
	fmt.Fprintf(w, "  wall time      %s\n", s.Wall.Round(time.Millisecond))
	for _, l := range replicaLines(s.Replicas) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, e := range extra {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// Whole is s with the record counts of the whole output (records and
// the error records among them), those written before a --resume included.
func (s Summary) Whole(records, errors int64) Summary {
	s.Pairs, s.RecordErrors = records-errors, errors
	return s
}
