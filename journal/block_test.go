package journal

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/readstate"
)

func block(rank, world int, total int64) *readstate.Block {
	b := readstate.For(total, rank, world)
	return &b
}

// TestShardChangeRefusesResume: a run split differently cannot resume
// another's journal.
func TestShardChangeRefusesResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.jsonl")
	fp := fingerprint.Fingerprint{Input: "i", Model: "m", Settings: "s", Questions: "q", Block: block(1, 4, 40)}
	if _, err := Create(out, fp); err != nil {
		t.Fatal(err)
	}
	other := fp
	other.Block = block(1, 8, 40)
	_, _, err := OpenChecked(out, other, nil)
	var me *MismatchError
	if !errors.As(err, &me) || len(me.Changes) != 1 || me.Changes[0].Component != "shard" {
		t.Fatalf("Open with another shard: %v", err)
	}
	st, err := Read(out)
	if err != nil || st.Fingerprint.Block == nil || *st.Fingerprint.Block != *fp.Block {
		t.Fatalf("Read: %+v, %v", st, err)
	}
	if _, _, err := OpenChecked(out, fp, nil); err != nil {
		t.Fatalf("Open with the same shard: %v", err)
	}
}

// TestVersion3JournalResumes: a journal written before typed blocks
// (version 3, the block as "rank=R;world=W;..."), its checksum over that
// form, still verifies, resumes a run that owns the same block, refuses
// one that does not, and is rewritten as this version at its next
// checkpoint.
func TestVersion3JournalResumes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.jsonl")
	want := block(2, 3, 1000)
	old := State{Version: 3, Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m", Settings: "s", Questions: "q",
		LegacyShard: "rank=2;world=3;from=666;to=1000;bytes=1000"}, Run: "r"}
	sum, err := checksum(old)
	if err != nil {
		t.Fatal(err)
	}
	old.Checksum = sum
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(out), b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Read(out)
	if err != nil || st.Fingerprint.Block == nil || *st.Fingerprint.Block != *want {
		t.Fatalf("Read a version 3 journal: %+v, %v", st.Fingerprint, err)
	}
	other := fingerprint.Fingerprint{Input: "i", Model: "m", Settings: "s", Questions: "q", Block: block(1, 3, 1000)}
	if _, _, err := OpenChecked(out, other, nil); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Open of another block: %v, want ErrMismatch", err)
	}
	fp := other
	fp.Block = want
	j, _, err := OpenChecked(out, fp, nil)
	if err != nil {
		t.Fatalf("Open of the same block: %v", err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := j.Checkpoint(f, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(Path(out))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	fpv, _ := v["fingerprint"].(map[string]any)
	if v["version"] != float64(Version) || fpv["shard"] != nil || fpv["block"] == nil {
		t.Fatalf("rewritten journal: %s", raw)
	}
}

func TestBadStoredBlockIsCorrupt(t *testing.T) {
	for _, legacy := range []string{"rank=3", "rank=16;world=16;from=0;to=1;bytes=1", "rank=0;world=2;from=5;to=4;bytes=9"} {
		s := State{Version: 3, Fingerprint: fingerprint.Fingerprint{LegacyShard: legacy}}
		sum, err := checksum(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Checksum = sum
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decode("j", b); !errors.Is(err, ErrCorrupt) || !errors.Is(err, readstate.ErrBlock) {
			t.Errorf("legacy block %q: %v, want ErrCorrupt and readstate.ErrBlock", legacy, err)
		}
	}
}
