package tune

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// shortRun is one run of total tokens on the replicas of twoLayouts, each
// on its own simulated device (virtual time), telling the tuner the share
// done before each batch as the scheduler does; it returns the replicas
// that ran a batch.
func shortRun(tn *Tuner, devs map[string]*device, total int64) map[string]bool {
	ran := map[string]bool{}
	var done int64
	for done < total {
		for _, r := range []string{"a", "b0", "b1"} {
			b := tn.Budget(r)
			if b <= 0 || done >= total {
				continue
			}
			rows := max(1, b/windowLen)
			tokens := rows * windowLen
			done += int64(tokens)
			tn.Done(float64(done) / float64(total))
			tn.Ran(r, b, tokens, tokens, time.Duration(float64(tokens)/devs[r].rate(r, rows)*float64(time.Second)))
			ran[r] = true
		}
	}
	return ran
}

// replicasOf names a layout's replicas in twoLayouts by its description.
func replicasOf(layout string) []string {
	for _, l := range twoLayouts().Layouts {
		if l.String() == layout {
			return l.Replicas
		}
	}
	return nil
}

// TestShortRunsContinueTheSearch: runs so short that the search's 2% share
// is a few batches each. The first caches the search as far as it got;
// each next run continues it (more batches searched over the runs, never
// back to none) until one finishes it and caches the choice a single long
// run finds. Every run's log names only layouts that run: the one it
// starts with, and each next one when it is tried.
func TestShortRunsContinueTheSearch(t *testing.T) {
	long := measure(t, filepath.Join(t.TempDir(), "long.json"))
	devB := &device{rates: map[int]float64{1: 42000, 2: 50000, 4: 45000, 8: 40000, 16: 30000, 32: 20000}}
	devs := map[string]*device{"a": {rates: peakAt4}, "b0": devB, "b1": devB}
	path := filepath.Join(t.TempDir(), "tuning.json")
	total := int64(100 * 1536) // 2% of it: about two batches of 1,536 tokens
	searched := 0
	for run := 1; ; run++ {
		if run > 200 {
			t.Fatalf("%d short runs did not finish the search (%d batches searched; a long run takes %d)", run-1, searched, long.Batches)
		}
		log, logs := observed(t)
		o := quick(twoLayouts())
		o.Cache, o.Logger = OpenCache(path, log), log
		tn := New(o)
		intent := tn.Intent()[0]
		if run > 1 && !strings.Contains(intent, "continuing the search of") {
			t.Fatalf("run %d: start-up line %q does not say it continues the cached search", run, intent)
		}
		named := []string{twoLayouts().Layouts[tn.classes[0].active].String()}
		ran := shortRun(tn, devs, total)
		for _, e := range logs.FilterMessage("layout measured; trying the next").All() {
			named = append(named, e.ContextMap()["next"].(string))
		}
		for _, l := range named {
			if !slices.ContainsFunc(replicasOf(l), func(r string) bool { return ran[r] }) {
				t.Fatalf("run %d: the log named layout %q, which ran no batch (intent %q)", run, l, intent)
			}
		}
		if err := tn.Save(); err != nil {
			t.Fatal(err)
		}
		f, err := readCache(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) == 1 {
			e := f.Entries[0]
			if len(f.Searches) != 0 || e.Sessions != 2 || e.Threads != 1 || e.Budget != long.Budget {
				t.Fatalf("run %d cached %+v and searches %+v; want only the long run's choice (2 sessions x 1 thread, %d tokens)", run, e, f.Searches, long.Budget)
			}
			ch := only(t, tn)
			if all := searched + ch.Batches; all > long.Batches*3/2 {
				t.Errorf("%d short runs searched %d batches together; a long run searched %d: the search restarted", run, all, long.Batches)
			}
			t.Logf("%d short runs of %d tokens finished the search in %d batches together (a long run: %d)", run, total, searched+ch.Batches, long.Batches)
			if run < 3 {
				t.Errorf("the search finished in %d runs: the runs are not short enough to test continuing it", run)
			}
			return
		}
		if len(f.Searches) != 1 || len(f.Entries) != 0 {
			t.Fatalf("run %d cached %+v and searches %+v; want one unfinished search", run, f.Entries, f.Searches)
		}
		s := f.Searches[0]
		if s.Runs != run || s.Batches <= searched {
			t.Fatalf("run %d cached a search of %d runs and %d batches; want %d runs and more than the %d batches before", run, s.Runs, s.Batches, run, searched)
		}
		searched = s.Batches
	}
}

// TestCachedSearchIsContinuedWhereItStopped: a search cached in the middle
// of a comparison starts the next run on that layout and those budgets,
// with the batches each side had, and a search that does not fit this
// run (other layouts, a budget off the ladder) is measured again.
func TestCachedSearchIsContinuedWhereItStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	s := Search{Key: testKey(), Active: 1, Runs: 2, Batches: 9,
		Layouts: []SearchLayout{{Sessions: 1, Threads: 2, Measured: true, Budget: 3072, Rate: 48000}, {Sessions: 2, Threads: 1}},
		Compare: &SearchCompare{Budget: 768, Challenger: 1536, Moved: true, Sides: [2]Tally{{Batches: 2, Tokens: 1536, Seconds: 0.03}, {Batches: 1, Tokens: 1536, Seconds: 0.035}}}}
	if err := OpenCache(path, nil).Save(nil, s); err != nil {
		t.Fatal(err)
	}
	o := quick(twoLayouts())
	o.Cache = OpenCache(path, nil)
	tn := New(o)
	if got := tn.Initial(); !slices.Equal(got, []string{"b0", "b1"}) {
		t.Fatalf("starts with %v, want the layout under measurement: b0, b1", got)
	}
	c := tn.classes[0]
	if !c.results[0].searched || c.budgets[c.results[0].budget] != 3072 || c.cmp.acc[0].n != 2 || c.cmp.acc[1].n != 1 ||
		c.budgets[c.cmp.cur] != 768 || c.budgets[c.cmp.chal] != 1536 || !c.cmp.moved {
		t.Fatalf("continued as %+v, results %+v; want layout a measured at 3072, 768 against 1536 with 2 and 1 batches", c.cmp, c.results)
	}
	// The side with fewer batches comes next.
	if got := tn.Budget("b0"); got != 1536 {
		t.Fatalf("first budget %d, want the challenger's 1536 (it has fewer batches)", got)
	}

	for name, bad := range map[string]func(*Search){
		"another layout": func(s *Search) { s.Layouts[1].Threads = 4 },
		"off the ladder": func(s *Search) { s.Compare.Budget = 1000 },
		"one layout":     func(s *Search) { s.Layouts = s.Layouts[:1]; s.Active = 0 },
	} {
		b := s
		b.Layouts = slices.Clone(s.Layouts)
		cmp := *s.Compare
		b.Compare = &cmp
		bad(&b)
		p := filepath.Join(t.TempDir(), "tuning.json")
		if err := OpenCache(p, nil).Save(nil, b); err != nil {
			t.Fatal(err)
		}
		log, logs := observed(t)
		o := quick(twoLayouts())
		o.Cache, o.Logger = OpenCache(p, log), log
		tn := New(o)
		if got := tn.Initial(); !slices.Equal(got, []string{"a"}) || tn.classes[0].before.runs != 0 {
			t.Errorf("%s: starts with %v after %d runs, want a fresh search from layout a", name, got, tn.classes[0].before.runs)
		}
		if logs.FilterMessageSnippet("does not fit").Len() != 1 {
			t.Errorf("%s: no warning that the cached search does not fit: %v", name, logs.All())
		}
	}
}

// TestChoiceReplacesTheSearch: a key has a choice or a search, never both.
func TestChoiceReplacesTheSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	c := OpenCache(path, nil)
	s := Search{Key: testKey(), Layouts: []SearchLayout{{Sessions: 1, Threads: 2}}, Compare: &SearchCompare{Budget: 768}}
	other := s
	other.Key.Device = "another machine"
	if err := c.Save(nil, s, other); err != nil {
		t.Fatal(err)
	}
	if err := c.Save([]Entry{{Key: testKey(), Sessions: 1, Threads: 2, Budget: 768}}); err != nil {
		t.Fatal(err)
	}
	f, err := readCache(path)
	if err != nil || len(f.Entries) != 1 || len(f.Searches) != 1 || f.Searches[0].Key != other.Key {
		t.Fatalf("cache %+v, %v; want the choice, and only the other machine's search", f, err)
	}
	if err := c.Save(nil, other); err != nil {
		t.Fatal(err)
	}
	if _, ok := OpenCache(path, nil).LookupSearch(other.Key); !ok {
		t.Fatal("the other machine's search is gone")
	}
}
