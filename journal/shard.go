package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Shard is the block of documents one rank of a split run owns.
type Shard struct {
	Rank, World int
	First, End  int64 // documents [First, End) by Seq
}

// ShardValue renders a Shard for Fingerprint.Shard.
func ShardValue(s Shard) string {
	return fmt.Sprintf("rank=%d;world=%d;first=%d;end=%d", s.Rank, s.World, s.First, s.End)
}

// ParseShard reads Fingerprint.Shard back.
func ParseShard(v string) (Shard, error) {
	var s Shard
	if _, err := fmt.Sscanf(v, "rank=%d;world=%d;first=%d;end=%d", &s.Rank, &s.World, &s.First, &s.End); err != nil {
		return Shard{}, fmt.Errorf("%w: shard %q: %w", ErrCorrupt, v, err)
	}
	if s.World < 1 || s.Rank < 0 || s.Rank >= s.World || s.First < 0 || s.End < s.First {
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
