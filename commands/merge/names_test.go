package merge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/filelock"
	"qa-shard/journal"
)

// TestMissingRankIsNotAnotherInput: a missing rank is reported as
// missing, and the rank after it is not also said to start where the
// blocks split a different input.
func TestMissingRankIsNotAnotherInput(t *testing.T) {
	dir := t.TempDir()
	f := threeRanks(t, dir)
	_, err := mergeFiles(options{Output: filepath.Join(dir, "merged.jsonl"), Ranks: []string{f[0], f[2]}})
	if !errors.Is(err, ErrRanks) || !strings.Contains(err.Error(), "rank 1 of 3 is missing") || strings.Contains(err.Error(), "split different inputs") {
		t.Errorf("err = %v\nwant the missing rank alone", err)
	}
}

// TestRanksNamedByJournalOrLock: a rank named by its journal or its lock
// (what a glob such as answers.rank-* matches beside the answers) is the
// rank's answers, once: the merge is the merge of the answers named.
func TestRanksNamedByJournalOrLock(t *testing.T) {
	dir := t.TempDir()
	f := threeRanks(t, dir)
	args := []string{f[0] + journal.Suffix, f[1], f[1] + journal.Suffix, f[1] + filelock.Suffix, f[2] + filelock.Suffix}
	out := filepath.Join(dir, "merged.jsonl")
	if _, err := mergeFiles(options{Output: out, Ranks: rankPaths(args)}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != wantAnswers(10) {
		t.Errorf("merged:\n%s\nwant documents 0..9 once", b)
	}
}

// TestLogitsWhenNoRankWroteAny: --logits when no rank wrote logits is
// refused, naming why, and creates no folder.
func TestLogitsWhenNoRankWroteAny(t *testing.T) {
	dir := t.TempDir()
	ranks := []string{
		writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 4, settings: "s"}),
		writeRank(t, dir, rank{rank: 1, world: 2, first: 4, end: 10, settings: "s"}),
	}
	lg := filepath.Join(dir, "merged-logits")
	_, err := mergeFiles(options{Output: filepath.Join(dir, "merged.jsonl"), Logits: lg, Ranks: ranks})
	if !errors.Is(err, ErrRanks) || !strings.Contains(err.Error(), "the ranks wrote no logits") {
		t.Errorf("err = %v, want the ranks wrote no logits", err)
	}
	if _, err := os.Stat(lg); err == nil {
		t.Errorf("the refused merge created %s", lg)
	}
}
