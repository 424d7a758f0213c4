package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Shard is the block one rank of a split run owns: bytes [From, To) of
// the input's Total bytes (every file end to end, in order).
type Shard struct {
	Rank, World     int
	From, To, Total int64
}

// ShardValue renders a Shard for Fingerprint.Shard.
func ShardValue(s Shard) string {
	return fmt.Sprintf("rank=%d;world=%d;from=%d;to=%d;bytes=%d", s.Rank, s.World, s.From, s.To, s.Total)
}

// ParseShard reads Fingerprint.Shard back.
func ParseShard(v string) (Shard, error) {
	var s Shard
	if _, err := fmt.Sscanf(v, "rank=%d;world=%d;from=%d;to=%d;bytes=%d", &s.Rank, &s.World, &s.From, &s.To, &s.Total); err != nil {
		return Shard{}, fmt.Errorf("%w: shard %q: %w", ErrCorrupt, v, err)
	}
	if s.World < 1 || s.Rank < 0 || s.Rank >= s.World || s.From < 0 || s.To < s.From || s.Total < s.To {
		return Shard{}, fmt.Errorf("%w: shard %q is not a valid block", ErrCorrupt, v)
	}
	return s, nil
}

// Read loads a journal without taking it over (for merge).
func Read(outputPath string) (State, error) {
	path := Path(outputPath)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, fmt.Errorf("%w: %s does not exist", ErrNoJournal, path)
	}
	if err != nil {
		return State{}, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	return decode(path, b)
}
