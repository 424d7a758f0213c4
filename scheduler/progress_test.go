package scheduler

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestProgressReports: percent and ETA count input bytes (resumed ones
// included in the percent, excluded from the rate); rates and the bar
// and log line show documents, windows and replicas.
func TestProgressReports(t *testing.T) {
	p := newProgress(Config{Checkpoints: Checkpoints{SkipBelow: 100}, Reporting: Reporting{Total: 1000, TotalBytes: 1_000_000}}, []string{"gpu0", "gpu1"})
	p.skipped(100_000) // the 100 resumed documents
	a := p.snap()
	for range 50 {
		p.addDoc()
	}
	p.addWork(200_000)
	p.addWindows("gpu0", 300)
	p.addWindows("gpu1", 100)
	p.addError()
	b := p.snap()
	b.at = a.at.Add(10 * time.Second)
	r := p.rates(a, b)
	if r.docs != 5 || r.windows != 40 || r.bytes != 20_000 || r.perRep["gpu0"] != 30 || r.perRep["gpu1"] != 10 {
		t.Fatalf("rates %+v: want 5 docs/s, 40 win/s, 20 kB/s, 30 and 10 per replica", r)
	}
	// 1 MB - 100 kB resumed - 200 kB now = 700 kB left at 20 kB/s.
	if eta := p.eta(a, b); eta != 35*time.Second {
		t.Errorf("eta %s, want 35s", eta)
	}
	// Bytes credited without a window run (bad lines) give no ETA.
	c := newProgress(Config{Reporting: Reporting{TotalBytes: 1000}}, nil)
	s0 := c.snap()
	c.addWork(100)
	s1 := c.snap()
	s1.at = s0.at.Add(time.Second)
	if eta := c.eta(s0, s1); eta != -1 {
		t.Errorf("eta %s before any window ran, want unknown", eta)
	}
	if f := p.fraction(b); f != 0.3 {
		t.Errorf("fraction %v, want 0.3 of the bytes (not 0.15 of the documents)", f)
	}
	var bar strings.Builder
	bar.WriteString(p.barLine(b, r, p.eta(a, b), func() string { return "gpu0 97%" }))
	for _, want := range []string{" 30.0%", "150/1000 docs", "5.0 docs/s", "40 win/s", "ETA 35s", "1 errors", "gpu0 30 gpu1 10", "gpu0 97%"} {
		if !strings.Contains(bar.String(), want) {
			t.Errorf("bar %q lacks %q", bar.String(), want)
		}
	}
	core, logs := observer.New(zap.InfoLevel)
	p.log(zap.New(core), b, r, p.eta(a, b), nil)
	f := logs.All()[0].ContextMap()
	if f["docs"] != int64(150) || f["total"] != int64(1000) || f["percent"] != 30.0 || f["windows_per_s_gpu0"] != 30.0 || f["eta"] != 35*time.Second {
		t.Errorf("log fields %v", f)
	}
}

// TestProgressStopping: once the run is stopping the ETA is gone from
// the bar and the log line, which say so instead.
func TestProgressStopping(t *testing.T) {
	p := newProgress(Config{Reporting: Reporting{TotalBytes: 1000}}, []string{"cpu:0"})
	a := p.snap()
	p.addWork(100)
	p.addWindows("cpu:0", 10)
	b := p.snap()
	b.at = a.at.Add(time.Second)
	if eta := p.eta(a, b); eta != 9*time.Second {
		t.Fatalf("eta %s, want 9s", eta)
	}
	p.stopping.Store(true)
	if eta := p.eta(a, b); eta != -1 {
		t.Errorf("eta %s while stopping, want none", eta)
	}
	var bar strings.Builder
	bar.WriteString(p.barLine(b, p.rates(a, b), p.eta(a, b), nil))
	if strings.Contains(bar.String(), "ETA") || !strings.Contains(bar.String(), "stopping") {
		t.Errorf("bar while stopping: %q", bar.String())
	}
	core, logs := observer.New(zap.InfoLevel)
	p.log(zap.New(core), b, p.rates(a, b), p.eta(a, b), nil)
	if f := logs.All()[0].ContextMap(); f["stopping"] != true || f["eta"] != nil {
		t.Errorf("log fields while stopping: %v", f)
	}
}

// TestProgressWithoutByteTotal: standard input has no byte total; with a
// document count percent and ETA count documents, without one neither is
// known.
func TestProgressWithoutByteTotal(t *testing.T) {
	p := newProgress(Config{Reporting: Reporting{Total: 100}}, nil)
	a := p.snap()
	for range 20 {
		p.addDoc()
	}
	p.addWork(5000)
	p.addWindows("sim:0", 30)
	b := p.snap()
	b.at = a.at.Add(4 * time.Second)
	if f, eta := p.fraction(b), p.eta(a, b); f != 0.2 || eta != 16*time.Second {
		t.Errorf("by documents: fraction %v, eta %s; want 0.2 and 16s", f, eta)
	}
	p = newProgress(Config{}, nil)
	p.addDoc()
	b = p.snap()
	b.at = a.at.Add(time.Second)
	if f, eta := p.fraction(b), p.eta(a, b); f != -1 || eta != -1 {
		t.Errorf("nothing known: fraction %v, eta %s; want -1 and -1", f, eta)
	}
}

// TestWindowSharesAddUp: a document's bytes are spread over its windows
// so that the shares add up to exactly its bytes, whatever the division
// leaves over.
func TestWindowSharesAddUp(t *testing.T) {
	for _, tc := range []struct{ bytes, windows int64 }{{1000, 7}, {5, 9}, {1, 1}, {123457, 4754}} {
		d := &docState{windows: tc.windows}
		d.doc.Bytes = tc.bytes
		d.pending.Store(tc.windows)
		var sum int64
		var last *docState
		for range tc.windows {
			if last != nil {
				t.Fatalf("%+v: the document was handed on before its last window", tc)
			}
			sum += d.ranWindow()
			last = d.finishWindow()
		}
		if last != d || sum != tc.bytes {
			t.Errorf("%+v: shares add to %d (last window hands on the document: %v)", tc, sum, last == d)
		}
	}
}

// TestProgressDocsTotalAsCounted: the document total appears once counted,
// marked "~" while it is an estimate, in the bar and the log line.
func TestProgressDocsTotalAsCounted(t *testing.T) {
	n, est := int64(0), false
	p := newProgress(Config{Reporting: Reporting{TotalBytes: 1000, DocsTotal: func() (int64, bool) { return n, est }}}, nil)
	a := p.snap()
	p.addDoc()
	b := p.snap()
	b.at = a.at.Add(time.Second)
	bar := func() string {
		var s strings.Builder
		s.WriteString(p.barLine(b, p.rates(a, b), p.eta(a, b), nil))
		return s.String()
	}
	if s := bar(); !strings.Contains(s, " 1 docs") {
		t.Errorf("bar before the count: %q", s)
	}
	n, est = 1200, true
	if s := bar(); !strings.Contains(s, "1/~1200 docs") {
		t.Errorf("bar with an estimate: %q", s)
	}
	core, logs := observer.New(zap.InfoLevel)
	p.log(zap.New(core), b, p.rates(a, b), p.eta(a, b), nil)
	if f := logs.All()[0].ContextMap(); f["total"] != int64(1200) || f["total_estimated"] != true {
		t.Errorf("log fields with an estimate: %v", f)
	}
	est = false
	if s := bar(); !strings.Contains(s, "1/1200 docs") {
		t.Errorf("bar with the count: %q", s)
	}
}
