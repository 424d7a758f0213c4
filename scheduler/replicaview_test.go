package scheduler

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// layoutShaper: layout "a" runs the first four batches, then "b" (b:0,
// b:1) takes over for good; "c" is a layout that is never used. It
// records the shares of the run it is told are done.
type layoutShaper struct {
	scriptShaper
	mu     sync.Mutex
	shares []float64
}

func (s *layoutShaper) Using(replica string) bool {
	s.scriptShaper.mu.Lock()
	defer s.scriptShaper.mu.Unlock()
	return strings.HasPrefix(replica, "b:") == (s.ran >= 4)
}

func (s *layoutShaper) Done(share float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shares = append(s.shares, share)
}

type labeledReplica struct {
	*fakeReplica
	label string
}

func (r *labeledReplica) Label() string { return r.label }

// TestSummaryShowsTheLayoutInUse: the summary lists the replicas in use
// by their labels, the search's replica that ran as the search, and not
// the one that never ran; the shaper hears the share of the run done.
func TestSummaryShowsTheLayoutInUse(t *testing.T) {
	lines := corpus(60, 150, 17)
	mk := func(name, label string) *labeledReplica {
		return &labeledReplica{fakeReplica: &fakeReplica{name: name}, label: label}
	}
	a, b0, b1, c := mk("a:0", "cpu#1 (2 threads)"), mk("b:0", "cpu#1 (1 thread)"), mk("b:1", "cpu#2 (1 thread)"), mk("c:0", "never")
	sh := &layoutShaper{}
	sh.plan = func(replica string, ran int) int {
		switch {
		case replica == "c:0":
			return -1
		case (replica == "a:0") == (ran < 4):
			return 128
		case replica == "a:0":
			return -1
		}
		return 0
	}
	cfg := testConfig()
	cfg.Shaper, cfg.TotalBytes = sh, totalBytes(lines)
	var sink memSink
	sum, err := runGuarded(t, guard(t), cfg, source(lines, overlapQuestion), []Replica{a, b0, b1, c}, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, lines, &sink)
	var used, search []string
	for _, u := range sum.Replicas {
		if u.Search {
			search = append(search, u.Label)
		} else {
			used = append(used, u.Label)
		}
	}
	if strings.Join(used, ",") != "cpu#1 (1 thread),cpu#2 (1 thread)" || strings.Join(search, ",") != "cpu#1 (2 threads)" {
		t.Errorf("summary replicas: in use %q, search %q", used, search)
	}
	if _, ok := sum.ReplicaCounts["c:0"]; ok {
		t.Errorf("windows_per_replica lists the layout that never ran: %v", sum.ReplicaCounts)
	}
	var table strings.Builder
	sum.WriteTable(&table)
	if !strings.Contains(table.String(), "layout search  cpu#1 (2 threads)") || strings.Contains(table.String(), "never") {
		t.Errorf("summary table:\n%s", table.String())
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for i, s := range sh.shares {
		if s < 0 || s > 1 || (i > 0 && s < sh.shares[i-1]) {
			t.Fatalf("shares told to the shaper: %v, want rising within [0, 1]", sh.shares)
		}
	}
	if len(sh.shares) == 0 || sh.shares[len(sh.shares)-1] < 0.5 {
		t.Errorf("shares told to the shaper: %v, want them to reach the end of the run", sh.shares)
	}
}

// TestProgressShowsReplicasInUseByLabel: the bar names the replicas in
// use by their labels and leaves the others out; the log line keeps the
// stable names in its field keys.
func TestProgressShowsReplicasInUseByLabel(t *testing.T) {
	p := newProgress(Config{Reporting: Reporting{TotalBytes: 1000}}, []string{"cpu:0.2s.0", "cpu:0"})
	p.labels = map[string]string{"cpu:0.2s.0": "cpu#1 (1 thread)", "cpu:0": "cpu#1 (2 threads)"}
	p.inUse = func(name string) bool { return name == "cpu:0.2s.0" }
	a := p.snap()
	p.addWork(100)
	p.addWindows("cpu:0.2s.0", 10)
	p.addWindows("cpu:0", 4)
	b := p.snap()
	b.at = a.at.Add(time.Second)
	var bar strings.Builder
	bar.WriteString(p.barLine(b, p.rates(a, b), p.eta(a, b), nil))
	if s := bar.String(); !strings.Contains(s, "cpu#1 (1 thread) 10") || strings.Contains(s, "2 threads") || strings.Contains(s, "cpu:0") {
		t.Errorf("bar: %q", s)
	}
}

// totalBytes is what the lines stand for as a JSONL file.
func totalBytes(lines []string) int64 {
	var n int64
	for _, l := range lines {
		n += int64(len(l)) + 1
	}
	return n
}
