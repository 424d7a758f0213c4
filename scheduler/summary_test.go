package scheduler

import (
	"strings"
	"testing"
	"time"
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

// TestSummaryTable: the table a person reads at the end of a run, word
// for word: counts of one in the singular, a replica that only ran while
// the layouts were measured set apart, the extra lines last.
func TestSummaryTable(t *testing.T) {
	s := Summary{Documents: 3, Pairs: 5, Windows: 1, Tokens: 300, PaddedTokens: 400, Batches: 1, RecordErrors: 1, Wall: 1500 * time.Millisecond,
		Replicas: []ReplicaUse{{Name: "gpu0", Label: "gpu0 (H100)", Windows: 1}, {Name: "cpu:0", Label: "cpu#1 (2 threads)", Windows: 2, Search: true}}}
	var b strings.Builder
	s.WriteTable(&b, "answers file   answers.jsonl")
	want := `
qa-shard summary
  documents      3 (2.0/s)
  answers        5
  windows        1 in 1 batch
  tokens         300 (padding 25.0%)
  record errors  1
  wall time      1.5s
  replicas       gpu0 (H100) 1 window
  layout search  cpu#1 (2 threads) 2 windows (sessions measured, then set aside)
  answers file   answers.jsonl
`
	if b.String() != want {
		t.Errorf("summary table:\n%s\nwant:\n%s", b.String(), want)
	}
	s.Windows, s.Batches = 7, 2
	b.Reset()
	s.WriteTable(&b)
	if !strings.Contains(b.String(), "  windows        7 in 2 batches\n") {
		t.Errorf("summary table:\n%s", b.String())
	}
}
