package journal

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestShardValueRoundTrip(t *testing.T) {
	in := Shard{Rank: 3, World: 16, From: 120, To: 160, Total: 1000}
	out, err := ParseShard(ShardValue(in))
	if err != nil || out != in {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
	for _, bad := range []string{"", "rank=3", "rank=16;world=16;from=0;to=1;bytes=1", "rank=0;world=1;from=5;to=4;bytes=9", "rank=0;world=1;from=0;to=4;bytes=3"} {
		if _, err := ParseShard(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseShard(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// TestShardChangeRefusesResume: a run split differently cannot resume
// another's journal.
func TestShardChangeRefusesResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.jsonl")
	fp := Fingerprint{Input: "i", Model: "m", Settings: "s", Questions: "q", Shard: ShardValue(Shard{Rank: 1, World: 4, From: 10, To: 20, Total: 40})}
	if _, err := Create(out, fp); err != nil {
		t.Fatal(err)
	}
	other := fp
	other.Shard = ShardValue(Shard{Rank: 1, World: 8, From: 5, To: 10, Total: 40})
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
