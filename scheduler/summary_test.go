package scheduler

import (
	"strings"
	"testing"
)

// TestErrorLimit: --max-errors is a count or a share of the records
// written; a run at or under it is within the limit.
func TestErrorLimit(t *testing.T) {
	for _, tc := range []struct {
		value           string
		errors, answers int64
		allows          bool
	}{
		{"0", 0, 10, true}, {"0", 1, 9, false}, {"3", 3, 7, true}, {"3", 4, 996, false},
		{"10%", 1, 9, true}, {"10%", 2, 8, false}, {"0.5%", 5, 995, true}, {"0.5%", 6, 994, false},
		{"100%", 7, 0, true}, {" 2 ", 2, 7, true}, {"50%", 0, 0, false},
	} {
		l, err := ParseErrorLimit(tc.value)
		if got := l.Allows(Summary{RecordErrors: tc.errors, Pairs: tc.answers}); err != nil || got != tc.allows {
			t.Errorf("--max-errors %q with %d errors and %d answers: allows %v (%v), want %v", tc.value, tc.errors, tc.answers, got, err, tc.allows)
		}
	}
	for _, bad := range []string{"", "-1", "x", "5%%", "101%", "-1%", "1.5", "NaN%"} {
		if _, err := ParseErrorLimit(bad); err == nil || !strings.Contains(err.Error(), "count") {
			t.Errorf("--max-errors %q: %v, want an error saying what to give", bad, err)
		}
	}
}
