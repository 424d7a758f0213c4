package readstate

import (
	"errors"
	"testing"
)

// TestBlocksTile: for every world size the blocks of its ranks tile
// [0, total) in rank order, and Owner names the block that holds a byte.
func TestBlocksTile(t *testing.T) {
	for _, total := range []int64{0, 1, 7, 1000, 1<<62 + 3} {
		for world := 1; world <= 9; world++ {
			var next int64
			for r := range world {
				b := For(total, r, world)
				if b.From != next || b.To < b.From || b.Total != total {
					t.Fatalf("total %d world %d: rank %d is %s after %d", total, world, r, b, next)
				}
				if err := b.Valid(); err != nil {
					t.Fatal(err)
				}
				for _, x := range []int64{b.From, b.To - 1, (b.From + b.To) / 2} {
					if b.To > b.From && b.Owner(x) != r {
						t.Fatalf("total %d world %d: byte %d of %s owned by %d", total, world, x, b, b.Owner(x))
					}
				}
				next = b.To
			}
			if next != total {
				t.Fatalf("total %d world %d: blocks end at %d", total, world, next)
			}
		}
	}
}

func TestParseLegacy(t *testing.T) {
	want := For(1000, 3, 16)
	got, err := ParseLegacy("rank=3;world=16;from=187;to=250;bytes=1000")
	if err != nil || got != want {
		t.Fatalf("ParseLegacy = %s, %v; want %s", got, err, want)
	}
	for _, bad := range []string{"", "rank=3", "rank=16;world=16;from=0;to=1;bytes=1",
		"rank=0;world=1;from=5;to=4;bytes=9", "rank=0;world=1;from=0;to=4;bytes=3",
		"rank=3;world=16;from=187;to=250;bytes=1000;extra=1", "rank=3;world=16;from=x;to=250;bytes=1000"} {
		if _, err := ParseLegacy(bad); !errors.Is(err, ErrBlock) {
			t.Errorf("ParseLegacy(%q) = %v, want ErrBlock", bad, err)
		}
	}
}
