package scheduler

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// progress counts what is done, for the live bar or the periodic log line
// and for the summary.
type progress struct {
	total    int64
	base     int64 // documents already done before this run (resume)
	docs     atomic.Int64
	errors   atomic.Int64
	windows  atomic.Int64
	failures [3]atomic.Int64 // by failure kind
	mu       sync.Mutex
	perRep   map[string]int64
}

func newProgress(total, base int64, replicas []string) *progress {
	p := &progress{total: total, base: base, perRep: map[string]int64{}}
	for _, r := range replicas {
		p.perRep[r] = 0
	}
	return p
}

func (p *progress) addDoc()              { p.docs.Add(1) }
func (p *progress) addError()            { p.errors.Add(1) }
func (p *progress) addFailure(f failure) { p.failures[f].Add(1) }

func (p *progress) addWindows(replica string, n int) {
	p.windows.Add(int64(n))
	p.mu.Lock()
	p.perRep[replica] += int64(n)
	p.mu.Unlock()
}

func (p *progress) replicaWindows() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.perRep))
	for k, v := range p.perRep {
		out[k] = v
	}
	return out
}

// snapshot is the state at one moment; rates come from two of them.
type snapshot struct {
	at            time.Time
	docs, windows int64
	perRep        map[string]int64
}

func (p *progress) snap() snapshot {
	return snapshot{at: time.Now(), docs: p.docs.Load(), windows: p.windows.Load(), perRep: p.replicaWindows()}
}

// rates between two snapshots.
type rates struct {
	docs, windows float64
	perRep        map[string]float64
	eta           time.Duration // -1: unknown
}

func (p *progress) rates(a, b snapshot) rates {
	dt := b.at.Sub(a.at).Seconds()
	r := rates{perRep: map[string]float64{}, eta: -1}
	if dt <= 0 {
		return r
	}
	r.docs, r.windows = float64(b.docs-a.docs)/dt, float64(b.windows-a.windows)/dt
	for k, v := range b.perRep {
		r.perRep[k] = float64(v-a.perRep[k]) / dt
	}
	if left := p.total - p.base - b.docs; p.total > 0 && r.docs > 0 && left >= 0 {
		r.eta = time.Duration(float64(left) / r.docs * float64(time.Second)).Round(time.Second)
	}
	return r
}

// start reports progress until the returned func is called: a bar
// redrawn in place when bar is a terminal, else a log line every interval.
// Rates are over the last interval, so a slowing run shows it.
func (p *progress) start(ctx context.Context, log *zap.Logger, every time.Duration, bar io.Writer, status func() string) func() {
	ctx, cancel := context.WithCancel(ctx)
	if bar != nil {
		every = 500 * time.Millisecond
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		first, last := p.snap(), p.snap()
		for {
			select {
			case <-ctx.Done():
				if bar != nil {
					p.draw(bar, p.rates(first, p.snap()), status)
					fmt.Fprintln(bar)
				}
				return
			case <-t.C:
				now := p.snap()
				if bar != nil {
					// The bar smooths over the whole run: 500 ms windows are noisy.
					p.draw(bar, p.rates(first, now), status)
				} else {
					p.log(log, p.rates(last, now), status)
				}
				last = now
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

func (p *progress) done() int64 { return p.base + p.docs.Load() }

func (p *progress) log(log *zap.Logger, r rates, status func() string) {
	done := p.done()
	fields := []zap.Field{zap.Int64("docs", done), zap.Float64("docs_per_s", round2(r.docs)),
		zap.Float64("windows_per_s", round2(r.windows)), zap.Int64("errors", p.errors.Load())}
	if p.total > 0 {
		fields = append(fields, zap.Int64("total", p.total), zap.Float64("percent", round2(100*float64(done)/float64(p.total))))
	}
	if r.eta >= 0 {
		fields = append(fields, zap.Duration("eta", r.eta))
	}
	for _, name := range sortedKeys(r.perRep) {
		fields = append(fields, zap.Float64("windows_per_s_"+name, round2(r.perRep[name])))
	}
	if status != nil {
		if s := status(); s != "" {
			fields = append(fields, zap.String("devices", s))
		}
	}
	log.Info("progress", fields...)
}

// draw rewrites one terminal line.
func (p *progress) draw(w io.Writer, r rates, status func() string) {
	done := p.done()
	var b strings.Builder
	if p.total > 0 {
		const width = 24
		frac := min(1, float64(done)/float64(p.total))
		n := int(frac * width)
		fmt.Fprintf(&b, "[%s%s] %d/%d docs %5.1f%%", strings.Repeat("=", n), strings.Repeat(" ", width-n), done, p.total, 100*frac)
	} else {
		fmt.Fprintf(&b, "%d docs", done)
	}
	fmt.Fprintf(&b, "  %.1f docs/s  %.0f win/s", r.docs, r.windows)
	if r.eta >= 0 {
		fmt.Fprintf(&b, "  ETA %s", r.eta)
	}
	if e := p.errors.Load(); e > 0 {
		fmt.Fprintf(&b, "  %d errors", e)
	}
	var reps []string
	for _, name := range sortedKeys(r.perRep) {
		reps = append(reps, fmt.Sprintf("%s %.0f", name, r.perRep[name]))
	}
	fmt.Fprintf(&b, "  | win/s: %s", strings.Join(reps, " "))
	if status != nil {
		if s := status(); s != "" {
			fmt.Fprintf(&b, " | %s", s)
		}
	}
	fmt.Fprintf(w, "\r\x1b[K%s", b.String())
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
