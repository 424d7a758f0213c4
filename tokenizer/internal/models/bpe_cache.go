package models

import (
	"maps"
	"sync"
	"sync/atomic"

	"qa-shard/tokenizer/internal/stage"
)

// HF caches the pieces of words shorter than 256 bytes, up to 10,000
// words per thread, and stops adding when full. Here one cache is shared
// by all goroutines: readers look words up in an immutable map, with no
// lock; new words wait in a small map under a mutex and are published in a
// new immutable map once there are enough of them (each publication copies
// the published words, so the copies add up to a few times the capacity).
const (
	bpeCacheMaxWord = 256
	bpeCacheWords   = 1 << 16
)

type bpeCache struct {
	published atomic.Pointer[map[string][]stage.Piece]
	waiting   atomic.Int32 // len(pending), read without the lock
	mu        sync.Mutex
	pending   map[string][]stage.Piece
	size      int // published + pending words
}

func newBPECache() *bpeCache {
	return &bpeCache{pending: make(map[string][]stage.Piece)}
}

// get returns the cached pieces of word; the caller must not change them.
func (c *bpeCache) get(word string) ([]stage.Piece, bool) {
	if m := c.published.Load(); m != nil {
		if ps, ok := (*m)[word]; ok {
			return ps, true
		}
	}
	if c.waiting.Load() == 0 {
		return nil, false
	}
	c.mu.Lock()
	ps, ok := c.pending[word]
	c.mu.Unlock()
	return ps, ok
}

// put stores a copy of word's pieces, unless the cache is full.
func (c *bpeCache) put(word string, ps []stage.Piece) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size >= bpeCacheWords {
		return
	}
	if _, ok := c.pending[word]; ok {
		return
	}
	c.pending[word] = append([]stage.Piece(nil), ps...)
	c.size++
	old := c.published.Load()
	n := 0
	if old != nil {
		n = len(*old)
	}
	if len(c.pending) < max(256, n/2) && c.size < bpeCacheWords {
		c.waiting.Store(int32(len(c.pending)))
		return
	}
	next := make(map[string][]stage.Piece, n+len(c.pending))
	if old != nil {
		maps.Copy(next, *old)
	}
	maps.Copy(next, c.pending)
	c.published.Store(&next)
	c.pending = make(map[string][]stage.Piece)
	c.waiting.Store(0)
}
