package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
)

// Entry is one class's cached choice.
type Entry struct {
	Key             Key       `json:"key"`
	Sessions        int       `json:"sessions"`
	Threads         int       `json:"threads"`
	Budget          int       `json:"max_batch_tokens"`
	TokensPerSecond float64   `json:"tokens_per_second"`
	Written         time.Time `json:"written"`
}

// cacheVersion changes when the meaning of an entry does; a file of
// another version is ignored.
const cacheVersion = 1

// MaxAge is how long a cached choice is trusted: drivers, kernels and
// the machine's load change, and a stale choice costs speed silently.
const MaxAge = 30 * 24 * time.Hour

type cacheFile struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Cache is the file of choices, one per class key.
type Cache struct {
	path    string
	log     *zap.Logger
	now     func() time.Time
	entries []Entry
}

// Off is the --tune-cache value that neither reads nor writes a cache.
const Off = "none"

// OpenNamed opens the cache a --tune-cache value names: a path; "" for
// tuning.json in qa-shard's folder of the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux); Off for none (nil). Without a
// cache directory the run measures and keeps nothing, with a warning.
func OpenNamed(name string, log *zap.Logger) *Cache {
	if name == Off {
		return nil
	}
	if name == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			if log != nil {
				log.Warn("tuning cache off: no cache directory", zap.Error(err))
			}
			return nil
		}
		name = filepath.Join(dir, "qa-shard", "tuning.json")
	}
	return OpenCache(name, log)
}

// OpenCache reads the cache at path. A missing file is an empty cache; an
// unreadable, corrupt or other-version file is ignored with a warning (the
// run then searches, and saving replaces the file).
func OpenCache(path string, log *zap.Logger) *Cache {
	if log == nil {
		log = zap.NewNop()
	}
	c := &Cache{path: path, log: log, now: time.Now}
	es, err := readCache(path)
	if err != nil {
		log.Warn("tuning cache ignored: the run measures its batch shape again and rewrites it", zap.String("path", path), zap.Error(err))
	}
	c.entries = es
	return c
}

func readCache(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f cacheFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	if f.Version != cacheVersion {
		return nil, fmt.Errorf("written by another version of qa-shard (format %d, this one reads %d)", f.Version, cacheVersion)
	}
	return f.Entries, nil
}

// Lookup finds the choice cached for k; a stale or invalid one is ignored
// with a warning.
func (c *Cache) Lookup(k Key) (Entry, bool) {
	for _, e := range c.entries {
		if e.Key != k {
			continue
		}
		switch {
		case e.Sessions < 1 || e.Threads < 0 || e.Budget < 1 || e.TokensPerSecond < 0:
			c.warn("the cached choice is invalid: ignored", k, zap.Int("sessions", e.Sessions), zap.Int("threads", e.Threads), zap.Int("max_batch_tokens", e.Budget))
		case c.now().Sub(e.Written) > MaxAge || e.Written.After(c.now().Add(time.Hour)):
			c.warn("the cached choice is stale: measuring again", k, zap.Time("written", e.Written))
		default:
			return e, true
		}
		return Entry{}, false
	}
	return Entry{}, false
}

func (c *Cache) warn(msg string, k Key, fields ...zap.Field) {
	c.log.Warn(msg, append([]zap.Field{zap.String("path", c.path), zap.String("device", k.Device), zap.String("runtime", k.Runtime)}, fields...)...)
}

// Save writes es over the entries of the same keys, keeping the others
// (another process may have added some since this one read the file): a
// temporary file renamed over the cache, so a reader never sees half.
func (c *Cache) Save(es []Entry) error {
	kept, _ := readCache(c.path) // what cannot be read is replaced
	now := c.now().UTC()
	for _, e := range es {
		e.Written = now
		replaced := false
		for i := range kept {
			if kept[i].Key == e.Key {
				kept[i], replaced = e, true
			}
		}
		if !replaced {
			kept = append(kept, e)
		}
	}
	b, err := json.MarshalIndent(cacheFile{Version: cacheVersion, Entries: kept}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("tuning cache: %w", err)
	}
	tmp := fmt.Sprintf("%s.tmp-%d", c.path, os.Getpid())
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("tuning cache: %w", err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("tuning cache: %w", err)
	}
	c.entries = kept
	return nil
}
