package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// cacheFile holds the choices and, apart (a qa-shard that predates them
// ignores the field), the searches not finished yet.
type cacheFile struct {
	Version  int      `json:"version"`
	Entries  []Entry  `json:"entries"`
	Searches []Search `json:"searches,omitempty"`
}

// Cache is the file of choices, one per class key, and of unfinished
// searches (partial.go), one per class key that has no choice.
type Cache struct {
	path string
	log  *zap.Logger
	now  func() time.Time
	file cacheFile
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
	f, err := readCache(path)
	if err != nil {
		log.Warn("tuning cache ignored: the run measures its batch shape again and rewrites it", zap.String("path", path), zap.Error(err))
	}
	c.file = f
	return c
}

func readCache(path string) (cacheFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cacheFile{}, nil
	}
	if err != nil {
		return cacheFile{}, err
	}
	var f cacheFile
	if err := json.Unmarshal(b, &f); err != nil {
		return cacheFile{}, fmt.Errorf("corrupt: %w", err)
	}
	if f.Version != cacheVersion {
		return cacheFile{}, fmt.Errorf("written by another version of qa-shard (format %d, this one reads %d)", f.Version, cacheVersion)
	}
	return f, nil
}

// Lookup finds the choice cached for k; a stale or invalid one is ignored
// with a warning.
func (c *Cache) Lookup(k Key) (Entry, bool) {
	for _, e := range c.file.Entries {
		if e.Key != k {
			continue
		}
		switch {
		case e.Sessions < 1 || e.Threads < 0 || e.Budget < 1 || e.TokensPerSecond < 0:
			c.warn("the cached choice is invalid: ignored", k, zap.Int("sessions", e.Sessions), zap.Int("threads", e.Threads), zap.Int("max_batch_tokens", e.Budget))
		case c.stale(e.Written):
			c.warn("the cached choice is stale: measuring again", k, zap.Time("written", e.Written))
		default:
			return e, true
		}
		return Entry{}, false
	}
	return Entry{}, false
}

// LookupSearch finds the unfinished search cached for k; a stale one is
// ignored with a warning (the search starts again).
func (c *Cache) LookupSearch(k Key) (Search, bool) {
	for _, s := range c.file.Searches {
		if s.Key != k {
			continue
		}
		if c.stale(s.Written) {
			c.warn("the cached search is stale: measuring again", k, zap.Time("written", s.Written))
			return Search{}, false
		}
		return s, true
	}
	return Search{}, false
}

// stale: written longer than MaxAge ago, or (a clock set back) in the future.
func (c *Cache) stale(written time.Time) bool {
	return c.now().Sub(written) > MaxAge || written.After(c.now().Add(time.Hour))
}

func (c *Cache) warn(msg string, k Key, fields ...zap.Field) {
	c.log.Warn(msg, append([]zap.Field{zap.String("path", c.path), zap.String("device", k.Device), zap.String("runtime", k.Runtime)}, fields...)...)
}

// Save writes es over the entries of the same keys, and ss over the
// searches, keeping the others (another process may have added some since
// this one read the file). A key has a choice or a search, not both: a
// choice ends its search, and a class searches only when its key's choice
// was missing, stale or unusable. The file is a temporary file renamed
// over the cache, so a reader never sees half.
func (c *Cache) Save(es []Entry, ss ...Search) error {
	f, _ := readCache(c.path) // what cannot be read is replaced
	now := c.now().UTC()
	for _, e := range es {
		e.Written = now
		f.Searches = slices.DeleteFunc(f.Searches, func(s Search) bool { return s.Key == e.Key })
		f.Entries = put(f.Entries, e, func(x Entry) bool { return x.Key == e.Key })
	}
	for _, s := range ss {
		s.Written = now
		f.Entries = slices.DeleteFunc(f.Entries, func(e Entry) bool { return e.Key == s.Key })
		f.Searches = put(f.Searches, s, func(x Search) bool { return x.Key == s.Key })
	}
	f.Version = cacheVersion
	b, err := json.MarshalIndent(f, "", "  ")
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
	c.file = f
	return nil
}

// put replaces the element of xs that same matches with x, or appends x.
func put[T any](xs []T, x T, same func(T) bool) []T {
	if i := slices.IndexFunc(xs, same); i >= 0 {
		xs[i] = x
		return xs
	}
	return append(xs, x)
}
