package status

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qa-shard/internal/fingerprint"
	"qa-shard/shard"
)

// TestAddMissing: a rank seen of a world of 3 brings the other two in as
// missing, in name order, and a single process brings nothing.
func TestAddMissing(t *testing.T) {
	base := filepath.Join(t.TempDir(), "a.jsonl")
	seen := read(shard.Path(base, shard.Rank{Rank: 1, World: 3}), false)
	if seen.State != "missing" || seen.Rank != 1 || seen.World != 3 {
		t.Fatalf("Read of an output without a journal: %+v", seen)
	}
	seen.State = "stopped" // as if its journal were there
	all := addMissing([]rankState{seen}, false)
	if len(all) != 3 {
		t.Fatalf("AddMissing: %+v", all)
	}
	for r, s := range all {
		if s.Rank != r || s.Output != shard.Path(base, shard.Rank{Rank: r, World: 3}) || (r != 1 && s.State != "missing") {
			t.Errorf("rank %d: %+v", r, s)
		}
	}
	if single := addMissing([]rankState{{Output: base, World: 1, State: "stopped"}}, false); len(single) != 1 {
		t.Errorf("a single process gained ranks: %+v", single)
	}
}

func TestFind(t *testing.T) {
	if _, err := find("a[.jsonl"); !errors.Is(err, ErrPattern) {
		t.Errorf("Find of a bad glob: %v, want ErrPattern", err)
	}
	dir := t.TempDir()
	got, err := find(filepath.Join(dir, "none.jsonl"))
	if err != nil || len(got) != 1 {
		t.Errorf("Find of an output that is not there: %v, %v (want it, to report as missing)", got, err)
	}
	// An output's journal, lock file or metrics address file names it.
	out := filepath.Join(dir, "x.jsonl")
	for _, arg := range []string{out, out + ".journal", out + ".lock", out + ".metrics.json"} {
		if got, err := find(arg); err != nil || len(got) != 1 || got[0] != out {
			t.Errorf("Find(%s) = %v, %v; want [%s]", arg, got, err, out)
		}
	}
}

// TestOutcome: a missing or corrupt rank outweighs one not complete yet,
// and only a run complete everywhere is nil.
func TestOutcome(t *testing.T) {
	ranks := func(states ...string) []rankState {
		var all []rankState
		for _, s := range states {
			all = append(all, rankState{State: s})
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
		if got := outcome(ranks(tc.states...)); !errors.Is(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("Outcome(%v) = %v, want %v", tc.states, got, tc.want)
		}
	}
}

// TestMismatched: of the ranks of one --output, those whose journals name
// another input, model, settings or questions than most ranks (merge's
// comparison), or another world size, are mismatched, naming what differs
// and the rank compared with; a corrupt rank keeps its state, the
// difference added; other outputs are not compared with them.
func TestMismatched(t *testing.T) {
	base := filepath.Join(t.TempDir(), "a.jsonl")
	fp := func(questions string) *fingerprint.Fingerprint {
		return &fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: questions}
	}
	rank := func(r, world int, state string, f *fingerprint.Fingerprint) rankState {
		return rankState{Output: shard.Path(base, shard.Rank{Rank: r, World: world}), Rank: r, World: world, State: state, fp: f}
	}
	all := mismatched([]rankState{
		rank(0, 3, "stopped", fp("q2")), rank(1, 3, "complete", fp("q1")), rank(2, 3, "complete", fp("q1")),
		rank(0, 2, "corrupt", fp("q1")),
		{Output: base, World: 1, State: "complete", fp: fp("other")},
	})
	want := []struct{ state, says string }{
		{"mismatched", "different questions than " + all[1].Output},
		{"complete", ""}, {"complete", ""},
		{"corrupt", "is rank 0 of 2, but " + all[1].Output + " (rank 1) is of 3"},
		{"complete", ""},
	}
	for i, w := range want {
		if all[i].State != w.state || !strings.Contains(all[i].Problem, w.says) || (w.says == "" && all[i].Problem != "") {
			t.Errorf("%s: %s %q, want %s saying %q", all[i].Output, all[i].State, all[i].Problem, w.state, w.says)
		}
	}
}

// TestTableSaysFiguresAreTheCheckpoints: the table says its figures are
// those of each rank's last checkpoint, and how old that is.
func TestTableSaysFiguresAreTheCheckpoints(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	all := []rankState{{Rank: 0, World: 2, State: "running", Documents: 496, Checkpoint: now.Add(-90 * time.Second), Checked: true, Host: "n1", PID: 7},
		{Rank: 1, World: 2, State: "missing"}}
	var b strings.Builder
	writeTable(&b, all, now)
	if out := b.String(); !strings.Contains(out, "last checkpoint 1m30s ago") || !strings.HasSuffix(out, asOfCheckpoint+"\n") {
		t.Fatalf("table:\n%s\nwant the checkpoint's age and a last line saying the figures are the checkpoints'", out)
	}
	b.Reset()
	writeTable(&b, all[1:], now)
	if strings.Contains(b.String(), asOfCheckpoint) {
		t.Errorf("no rank has a checkpoint, yet the table says its figures are one's:\n%s", b.String())
	}
}
