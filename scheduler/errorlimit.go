package scheduler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

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

// Allows says whether the run's error records are within the limit.
func (l ErrorLimit) Allows(s Summary) bool {
	if l.share {
		records := s.Pairs + s.RecordErrors
		return records > 0 && 100*float64(s.RecordErrors) <= l.percent*float64(records)
	}
	return s.RecordErrors <= l.count
}
