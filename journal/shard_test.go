package journal

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestShardValueRoundTrip(t *testing.T) {
	in := Shard{Rank: 3, World: 16, First: 120, End: 160}
	out, err := ParseShard(ShardValue(in))
	if err != nil || out != in {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
	for _, bad := range []string{"", "rank=3", "rank=16;world=16;first=0;end=1", "rank=0;world=1;first=5;end=4"} {
		if _, err := ParseShard(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseShard(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// TestShardChangeRefusesResume: a run split differently cannot resume
// another's journal.
func TestShardChangeRefusesResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.jsonl")
	fp := Fingerprint{Input: "i", Model: "m", Settings: "s", Questions: "q", Shard: ShardValue(Shard{Rank: 1, World: 4, First: 10, End: 20})}
	if _, err := Create(out, fp); err != nil {
		t.Fatal(err)
	}
	other := fp
	other.Shard = ShardValue(Shard{Rank: 1, World: 8, First: 5, End: 10})
	_, _, err := Open(out, other)
	var me *MismatchError
	if !errors.As(err, &me) || len(me.Changes) != 1 || me.Changes[0].Component != "shard" {
		t.Fatalf("Open with another shard: %v", err)
	}
	st, err := Read(out)
	if err != nil || st.Fingerprint.Shard != fp.Shard {
		t.Fatalf("Read: %+v, %v", st, err)
	}
}
