package scheduler

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

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
	fmt.Fprintf(w, "  windows        %d in %d batches\n", s.Windows, s.Batches)
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

// ErrorLimit is how many error records a complete run tolerates: a count,
// or a percentage of the records written.
type ErrorLimit struct {
	count   int64
	percent float64 // used when share
	share   bool
}

// ParseErrorLimit reads "10" (a count) or "0.5%" (a share of the records).
func ParseErrorLimit(s string) (ErrorLimit, error) {
	bad := fmt.Errorf("%q: give a count (10) or a percentage of the records (0.5%%)", s)
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
			return ErrorLimit{}, bad
		}
		return ErrorLimit{percent: v, share: true}, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return ErrorLimit{}, bad
	}
	return ErrorLimit{count: n}, nil
}

// Whole is s with the record counts of the whole output (records and
// the error records among them), those written before a --resume included.
func (s Summary) Whole(records, errors int64) Summary {
	s.Pairs, s.RecordErrors = records-errors, errors
	return s
}

// Allows says whether the run's error records are within the limit.
func (l ErrorLimit) Allows(s Summary) bool {
	if l.share {
		records := s.Pairs + s.RecordErrors
		return records > 0 && 100*float64(s.RecordErrors) <= l.percent*float64(records)
	}
	return s.RecordErrors <= l.count
}
