package tune

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func twoLayouts() Class {
	a := Layout{Sessions: 1, Threads: 2, Replicas: []string{"a"}}
	b := Layout{Sessions: 2, Threads: 1, Replicas: []string{"b0", "b1"}}
	return Class{Name: "cpu", Key: testKey(), Layouts: []Layout{a, b}, Budgets: ladder, Start: 1, Alternate: true}
}

// measure runs a full search on twoLayouts (layout b at 768 tokens wins)
// with the cache at path and saves it.
func measure(t *testing.T, path string) Choice {
	t.Helper()
	o := quick(twoLayouts())
	o.Cache = OpenCache(path, nil)
	tn := New(o)
	devA := &device{rates: peakAt4}
	devB := &device{rates: map[int]float64{1: 42000, 2: 50000, 4: 45000, 8: 40000, 16: 30000, 32: 20000}}
	for range 300 {
		drive(tn, []string{"a"}, devA, 1)
		drive(tn, []string{"b0", "b1"}, devB, 1)
	}
	if err := tn.Save(); err != nil {
		t.Fatal(err)
	}
	return only(t, tn)
}

func TestCacheReusesChoice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qa-shard", "tuning.json")
	first := measure(t, path)
	if first.Source != "measured" || first.Budget != 768 {
		t.Fatalf("first run chose %+v, want layout b at 768, measured", first)
	}
	log, logs := observed(t)
	o := quick(twoLayouts())
	o.Cache = OpenCache(path, log)
	o.Logger = log
	tn := New(o)
	if got := tn.Initial(); strings.Join(got, ",") != "b0,b1" {
		t.Fatalf("second run starts with %v, want the cached layout's replicas b0,b1", got)
	}
	if got, a := tn.Budget("b0"), tn.Budget("a"); got != 768 || a >= 0 {
		t.Fatalf("second run plans %d for b0 and %d for a; want 768 at once and a set aside", got, a)
	}
	ch := only(t, tn)
	if ch.Source != "cache" || ch.Layout != "2 sessions x 1 thread" || ch.Batches != 0 {
		t.Fatalf("second run: %+v, want the cached choice without searching", ch)
	}
	if n := logs.FilterMessageSnippet("ignored").Len() + logs.FilterMessageSnippet("stale").Len(); n != 0 {
		t.Fatalf("%d warnings about a valid cache", n)
	}
	// A different ONNX Runtime version is another key: a miss, silently.
	o.Classes[0].Key.Runtime = "1.31.0"
	if ch := only(t, New(o)); ch.Source != "unfinished" {
		t.Fatalf("another runtime version: %+v, want a fresh search", ch)
	}
}

func TestCacheIgnoresBadFiles(t *testing.T) {
	stale := time.Now().Add(-2 * MaxAge)
	entry := func(e Entry) string {
		b, _ := json.Marshal(cacheFile{Version: cacheVersion, Entries: []Entry{e}})
		return string(b)
	}
	good := Entry{Key: testKey(), Sessions: 2, Threads: 1, Budget: 768, TokensPerSecond: 90000, Written: time.Now()}
	for _, tc := range []struct {
		name, content, warning string
	}{
		{"corrupt", `{"version": 1, "entries": [{"key": `, "corrupt"},
		{"other version", `{"version": 99, "entries": []}`, "another version"},
		{"stale", entry(func() Entry { e := good; e.Written = stale; return e }()), "stale"},
		{"invalid", entry(func() Entry { e := good; e.Budget = 0; return e }()), "invalid"},
		{"layout not here", entry(func() Entry { e := good; e.Sessions, e.Threads = 16, 1; return e }()), "can run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tuning.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			log, logs := observed(t)
			o := quick(twoLayouts())
			o.Cache, o.Logger = OpenCache(path, log), log
			tn := New(o)
			if ch := only(t, tn); ch.Source != "unfinished" {
				t.Fatalf("choice %+v: a bad cache was used", ch)
			}
			found := false
			for _, e := range logs.All() {
				found = found || strings.Contains(e.Message+" "+errorField(e.ContextMap()), tc.warning)
			}
			if !found {
				t.Fatalf("no warning mentioning %q; logged %v", tc.warning, logs.All())
			}
			// The run that measures again rewrites a good file.
			if ch := measure(t, path); ch.Source != "measured" {
				t.Fatalf("measuring over a bad cache: %+v", ch)
			}
			f, err := readCache(path)
			es := f.Entries
			if err != nil || len(es) != 1 || es[0].Budget != 768 || time.Since(es[0].Written) > time.Hour {
				t.Fatalf("rewritten cache: %+v, %v; want one fresh entry at 768", es, err)
			}
		})
	}
}

func TestCacheKeepsOtherEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	other := testKey()
	other.Device = "another machine"
	if err := OpenCache(path, nil).Save([]Entry{{Key: other, Sessions: 1, Threads: 4, Budget: 384}}); err != nil {
		t.Fatal(err)
	}
	measure(t, path)
	f, err := readCache(path)
	es := f.Entries
	if err != nil || len(es) != 2 {
		t.Fatalf("cache holds %+v, %v; want both classes", es, err)
	}
}

func TestPinnedRunsDoNotWriteTheCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	c := twoLayouts()
	c.Budgets, c.PinnedBudget = []int{768}, true
	o := quick(c)
	o.Cache = OpenCache(path, nil)
	tn := New(o)
	drive(tn, []string{"a", "b0", "b1"}, &device{rates: peakAt4}, 200)
	if err := tn.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a run with the budget pinned wrote the cache (%v)", err)
	}
}

func errorField(m map[string]any) string {
	if e, ok := m["error"]; ok {
		return e.(string)
	}
	return ""
}

func TestPinnedLayoutDoesNotWriteTheCacheButASingleCandidateDoes(t *testing.T) {
	for _, pinned := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "tuning.json")
		c := Class{Name: "gpu", Key: testKey(), Layouts: oneLayout("2", "g0", "g1"), PinnedLayout: pinned, Budgets: ladder, Start: 1}
		o := quick(c)
		o.Cache = OpenCache(path, nil)
		tn := New(o)
		drive(tn, []string{"g0", "g1"}, &device{rates: peakAt4}, 200)
		if err := tn.Save(); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(path)
		if written := err == nil; written == pinned {
			t.Errorf("layout pinned %v: cache written %v", pinned, written)
		}
	}
}

// TestOpenNamed: the --tune-cache values. "" is tuning.json in qa-shard's
// folder of the user's cache directory, Off is no cache, a path is itself.
func TestOpenNamed(t *testing.T) {
	if c := OpenNamed(Off, nil); c != nil {
		t.Fatalf("OpenNamed(%q) = %+v, want no cache", Off, c)
	}
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	if c, want := OpenNamed("", nil), filepath.Join(home, "qa-shard", "tuning.json"); c == nil || c.path != want {
		t.Fatalf("OpenNamed(\"\") = %+v, want the cache at %s", c, want)
	}
	other := filepath.Join(t.TempDir(), "mine.json")
	if c := OpenNamed(other, nil); c == nil || c.path != other {
		t.Fatalf("OpenNamed(%q) = %+v, want the cache at that path", other, c)
	}
}

// TestCacheKeyedByISA: a layout measured on a CPU of one instruction set
// is not reused on a machine of the same model name with another (AMD
// EPYC names CPUs with and without AVX-512 VNNI alike), nor is an entry
// written before the key had an ISA.
func TestCacheKeyedByISA(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	measure(t, path)
	c := OpenCache(path, nil)
	if _, ok := c.Lookup(testKey()); !ok {
		t.Fatal("the entry just measured is not found")
	}
	for _, isa := range []string{"AVX2", ""} {
		k := testKey()
		k.ISA = isa
		if e, ok := c.Lookup(k); ok {
			t.Errorf("measured on %s, reused for ISA %q: %+v", testKey().ISA, isa, e)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"isa": "AVX-512 VNNI"`) && !strings.Contains(string(b), `"isa":"AVX-512 VNNI"`) {
		t.Errorf("the cache file does not record the ISA:\n%s", b)
	}
}
