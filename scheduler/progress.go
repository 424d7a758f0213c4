package scheduler

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// progress counts what is done, for the live bar or the periodic log line,
// the Observer and the summary. Percent and ETA count work, not documents:
// the input bytes of each document (record.Document.Bytes), spread evenly
// over its windows as they are decoded, against Config.TotalBytes. One
// document holding most of the corpus then moves the bar window by window
// instead of freezing it at "95%". Without a byte total (standard input)
// they fall back to documents.
type progress struct {
	total      int64 // documents expected (0: unknown)
	totalBytes int64 // input bytes expected (0: unknown)
	base       int64 // documents done before this run (resume)
	startBytes int64 // input bytes done before this run (Config.DoneBytes)
	baseBytes  atomic.Int64
	now        func() time.Time

	// stopping: the run is stopping (a drain or a stop); no ETA then.
	stopping                     atomic.Bool
	docs, errors, windows, bytes atomic.Int64
	failures                     [3]atomic.Int64 // by failure kind
	mu                           sync.Mutex
	perRep                       map[string]int64
	labels                       map[string]string // replica name -> label for people
	inUse                        func(string) bool // nil: every replica is shown
	docsTotal                    func() (int64, bool)
}

func newProgress(cfg Config, replicas []string) *progress {
	p := &progress{total: cfg.Total, totalBytes: cfg.TotalBytes, base: cfg.SkipBelow, now: cfg.Now, perRep: map[string]int64{}}
	if p.now == nil {
		p.now = time.Now
	}
	p.baseBytes.Store(cfg.DoneBytes)
	p.startBytes = cfg.DoneBytes
	p.docsTotal = cfg.DocsTotal
	for _, r := range replicas {
		p.perRep[r] = 0
	}
	return p
}

func (p *progress) addDoc()              { p.docs.Add(1) }
func (p *progress) addError()            { p.errors.Add(1) }
func (p *progress) addFailure(f failure) { p.failures[f].Add(1) }

// addWork counts input bytes whose windows were all run in this run;
// skipped counts those of documents already in the output (resume).
func (p *progress) addWork(bytes int64) { p.bytes.Add(bytes) }
func (p *progress) skipped(bytes int64) { p.baseBytes.Add(bytes) }

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

// snapshot is the state at one moment; rates come from two of them. Its
// counts are this run's only (resumed documents excluded).
type snapshot struct {
	at                   time.Time
	docs, windows, bytes int64
	perRep               map[string]int64
}

func (p *progress) snap() snapshot {
	return snapshot{at: p.now(), docs: p.docs.Load(), windows: p.windows.Load(), bytes: p.bytes.Load(), perRep: p.replicaWindows()}
}

// work is what percent and ETA count in s: done (resumed included) and
// total input bytes, or documents when the byte total is unknown; total 0
// means unknown. ran is the part this run did, for rates.
func (p *progress) work(s snapshot) (done, total, ran int64) {
	if p.totalBytes > 0 {
		return p.baseBytes.Load() + s.bytes, p.totalBytes, s.bytes
	}
	return p.base + s.docs, p.total, s.docs
}

// fraction done, 1 at the end (more only if the input changed under the
// run; the bar caps it), or -1 when the total is unknown.
func (p *progress) fraction(s snapshot) float64 {
	done, total, _ := p.work(s)
	if total <= 0 {
		return -1
	}
	return float64(done) / float64(total)
}

// eta is the work left over the rate of work between from and to (from
// the run's start: the steadiest estimate; the bar and the log line show
// current rates beside it); -1 when unknown, as it is until a model ran a
// window (bad lines, credited at once, say nothing of the model's speed),
// and once the run is stopping (the work left will not be done).
func (p *progress) eta(from, to snapshot) time.Duration {
	done, total, ran := p.work(to)
	_, _, ran0 := p.work(from)
	dt := to.at.Sub(from.at).Seconds()
	if p.stopping.Load() || total <= 0 || ran <= ran0 || dt <= 0 || to.windows == from.windows {
		return -1
	}
	left := max(0, total-done)
	return time.Duration(float64(left) / (float64(ran-ran0) / dt) * float64(time.Second))
}

// rates between two snapshots.
type rates struct {
	docs, windows, bytes float64
	perRep               map[string]float64
}

func (p *progress) rates(a, b snapshot) rates {
	dt := b.at.Sub(a.at).Seconds()
	r := rates{perRep: map[string]float64{}}
	if dt <= 0 {
		return r
	}
	r.docs, r.windows, r.bytes = float64(b.docs-a.docs)/dt, float64(b.windows-a.windows)/dt, float64(b.bytes-a.bytes)/dt
	for k, v := range b.perRep {
		r.perRep[k] = float64(v-a.perRep[k]) / dt
	}
	return r
}

// start reports progress until the returned func is called: a bar
// redrawn in place when bar is a terminal, else a log line every interval.
// The log line's rates are over the last interval, so a slowing run shows
// it; the ETA is over the whole run.
func (p *progress) start(ctx context.Context, log *zap.Logger, every time.Duration, bar StatusLine, status func() string) func() {
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
					now := p.snap()
					bar.Show(p.barLine(now, p.rates(first, now), p.eta(first, now), status))
					bar.Done()
				}
				return
			case <-t.C:
				now := p.snap()
				if bar != nil {
					// The bar smooths over the whole run: 500 ms windows are noisy.
					bar.Show(p.barLine(now, p.rates(first, now), p.eta(first, now), status))
				} else {
					p.log(log, now, p.rates(last, now), p.eta(first, now), status)
				}
				last = now
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// runShare is the share of this run's own work done (resumed work
// excluded), or -1 without a byte total.
func (p *progress) runShare() float64 {
	left := p.totalBytes - p.startBytes
	if p.totalBytes <= 0 || left <= 0 {
		return -1
	}
	return float64(p.bytes.Load()) / float64(left)
}

// shownTotal is the document total for the screen: n (0: unknown) and
// whether it is an estimate.
func (p *progress) shownTotal() (int64, bool) {
	if p.docsTotal != nil {
		if n, est := p.docsTotal(); n > 0 {
			return n, est
		}
	}
	return p.total, false
}

func (p *progress) done() int64 { return p.base + p.docs.Load() }

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
