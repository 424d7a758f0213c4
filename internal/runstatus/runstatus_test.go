package runstatus

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qa-shard/shard"
)

// TestAddMissing: a rank seen of a world of 3 brings the other two in as
// missing, in name order, and a single process brings nothing.
func TestAddMissing(t *testing.T) {
	base := filepath.Join(t.TempDir(), "a.jsonl")
	seen := Read(shard.Path(base, shard.Rank{Rank: 1, World: 3}))
	if seen.State != "missing" || seen.Rank != 1 || seen.World != 3 {
		t.Fatalf("Read of an output without a journal: %+v", seen)
	}
	seen.State = "stopped" // as if its journal were there
	all := AddMissing([]Rank{seen})
	if len(all) != 3 {
		t.Fatalf("AddMissing: %+v", all)
	}
	for r, s := range all {
		if s.Rank != r || s.Output != shard.Path(base, shard.Rank{Rank: r, World: 3}) || (r != 1 && s.State != "missing") {
			t.Errorf("rank %d: %+v", r, s)
		}
	}
	if single := AddMissing([]Rank{{Output: base, World: 1, State: "stopped"}}); len(single) != 1 {
		t.Errorf("a single process gained ranks: %+v", single)
	}
}

func TestFind(t *testing.T) {
	if _, err := Find("a[.jsonl"); !errors.Is(err, ErrPattern) {
		t.Errorf("Find of a bad glob: %v, want ErrPattern", err)
	}
	dir := t.TempDir()
	got, err := Find(filepath.Join(dir, "none.jsonl"))
	if err != nil || len(got) != 1 {
		t.Errorf("Find of an output that is not there: %v, %v (want it, to report as missing)", got, err)
	}
}

// TestOutcome: a missing or corrupt rank outweighs one not complete yet,
// and only a run complete everywhere is nil.
func TestOutcome(t *testing.T) {
	ranks := func(states ...string) []Rank {
		var all []Rank
		for _, s := range states {
			all = append(all, Rank{State: s})
		}
		return all
	}
	for _, tc := range []struct {
		states []string
		want   error
	}{
		{[]string{"complete", "complete"}, nil},
		{[]string{"complete", "stopped"}, ErrIncomplete},
		{[]string{"running", "complete"}, ErrIncomplete},
		{[]string{"running", "missing", "stopped"}, ErrBroken},
		{[]string{"corrupt", "complete"}, ErrBroken},
	} {
		if got := Outcome(ranks(tc.states...)); !errors.Is(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("Outcome(%v) = %v, want %v", tc.states, got, tc.want)
		}
	}
}

// TestTableSaysFiguresAreTheCheckpoints: the table says its figures are
// those of each rank's last checkpoint, and how old that is.
func TestTableSaysFiguresAreTheCheckpoints(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	all := []Rank{{Rank: 0, World: 2, State: "running", Documents: 496, Checkpoint: now.Add(-90 * time.Second), Checked: true, Host: "n1", PID: 7},
		{Rank: 1, World: 2, State: "missing"}}
	var b strings.Builder
	WriteTable(&b, all, now)
	if out := b.String(); !strings.Contains(out, "last checkpoint 1m30s ago") || !strings.HasSuffix(out, AsOfCheckpoint+"\n") {
		t.Fatalf("table:\n%s\nwant the checkpoint's age and a last line saying the figures are the checkpoints'", out)
	}
	b.Reset()
	WriteTable(&b, all[1:], now)
	if strings.Contains(b.String(), AsOfCheckpoint) {
		t.Errorf("no rank has a checkpoint, yet the table says its figures are one's:\n%s", b.String())
	}
}
