package readstate

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"qa-shard/internal/errkind"
)

// ErrBlock marks a stored block that is not a valid block of its input.
var ErrBlock = errkind.NewInternal("shard block")

// Block is what one rank of a split run owns: bytes [From, To) of the
// input's Total bytes (every file end to end, in order). The ranks'
// blocks tile [0, Total) in rank order; a single process owns the whole.
type Block struct {
	Rank  int   `json:"rank"`
	World int   `json:"world"`
	From  int64 `json:"from"`
	To    int64 `json:"to"`
	Total int64 `json:"total"`
}

// For is rank's block of total bytes: the rank-th of world equal ranges.
func For(total int64, rank, world int) Block {
	w := max(world, 1)
	return Block{Rank: rank, World: w, From: cut(total, rank, w), To: cut(total, rank+1, w), Total: total}
}

// Owner is the rank whose block holds global byte x. A unit that cannot
// be split (a compressed file, a Parquet row group) belongs to the owner
// of its middle byte, so every rank decides alike from sizes alone.
func (b Block) Owner(x int64) int {
	w := b.World
	if b.Total == 0 || w <= 1 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(x), uint64(w))
	q, _ := bits.Div64(hi, lo, uint64(b.Total))
	r := min(int(q), w-1)
	for r+1 < w && cut(b.Total, r+1, w) <= x {
		r++
	}
	for r > 0 && cut(b.Total, r, w) > x {
		r--
	}
	return r
}

// Valid says whether b can be a block: a rank of its world, inside its
// input. Whether the ranks' blocks tile the input is merge's check.
func (b Block) Valid() error {
	if b.World < 1 || b.Rank < 0 || b.Rank >= b.World {
		return fmt.Errorf("%w: %s is not a rank of its world", ErrBlock, b)
	}
	if b.From < 0 || b.To < b.From || b.Total < b.To {
		return fmt.Errorf("%w: %s is not a range of its input", ErrBlock, b)
	}
	return nil
}

func (b Block) String() string {
	return fmt.Sprintf("rank %d of %d, input bytes %d to %d of %d", b.Rank, b.World, b.From, b.To, b.Total)
}

// ParseLegacy reads the block as journals before typed blocks stored it,
// "rank=R;world=W;from=F;to=T;bytes=N".
func ParseLegacy(v string) (Block, error) {
	fields := map[string]int64{}
	for _, kv := range strings.Split(v, ";") {
		k, n, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil {
			return Block{}, fmt.Errorf("%w: %q is not rank=R;world=W;from=F;to=T;bytes=N", ErrBlock, v)
		}
		fields[k] = x
	}
	for _, k := range []string{"rank", "world", "from", "to", "bytes"} {
		if _, ok := fields[k]; !ok || len(fields) != 5 {
			return Block{}, fmt.Errorf("%w: %q is not rank=R;world=W;from=F;to=T;bytes=N", ErrBlock, v)
		}
	}
	b := Block{Rank: int(fields["rank"]), World: int(fields["world"]), From: fields["from"], To: fields["to"], Total: fields["bytes"]}
	if err := b.Valid(); err != nil {
		return Block{}, err
	}
	return b, nil
}

// cut is the start of the r-th of w equal ranges of total bytes,
// total*r/w without overflow.
func cut(total int64, r, w int) int64 {
	hi, lo := bits.Mul64(uint64(total), uint64(r))
	q, _ := bits.Div64(hi, lo, uint64(w))
	return int64(q)
}
