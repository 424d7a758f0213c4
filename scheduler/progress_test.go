package scheduler

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestProgressReports(t *testing.T) {
	p := newProgress(1000, 100, []string{"gpu0", "gpu1"})
	a := p.snap()
	for range 50 {
		p.addDoc()
	}
	p.addWindows("gpu0", 300)
	p.addWindows("gpu1", 100)
	p.addError()
	b := p.snap()
	b.at = a.at.Add(10 * time.Second)
	r := p.rates(a, b)
	if r.docs != 5 || r.windows != 40 || r.perRep["gpu0"] != 30 || r.perRep["gpu1"] != 10 {
		t.Fatalf("rates %+v: want 5 docs/s, 40 win/s, 30 and 10 per replica", r)
	}
	if r.eta != 170*time.Second { // 1000 - 100 done before - 50 now = 850 at 5/s
		t.Errorf("eta %s, want 2m50s", r.eta)
	}
	var bar strings.Builder
	p.draw(&bar, r, func() string { return "gpu0 97%" })
	for _, want := range []string{"150/1000 docs", "15.0%", "5.0 docs/s", "40 win/s", "ETA 2m50s", "1 errors", "gpu0 30 gpu1 10", "gpu0 97%"} {
		if !strings.Contains(bar.String(), want) {
			t.Errorf("bar %q lacks %q", bar.String(), want)
		}
	}
	core, logs := observer.New(zap.InfoLevel)
	p.log(zap.New(core), r, nil)
	f := logs.All()[0].ContextMap()
	if f["docs"] != int64(150) || f["total"] != int64(1000) || f["windows_per_s_gpu0"] != 30.0 || f["eta"] != 170*time.Second {
		t.Errorf("log fields %v", f)
	}
}
