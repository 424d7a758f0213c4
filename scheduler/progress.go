package scheduler

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// progress counts what is done, for the periodic log line and the summary.
type progress struct {
	total    int64
	docs     atomic.Int64
	errors   atomic.Int64
	failures [3]atomic.Int64 // by failure kind
	mu       sync.Mutex
	perRep   map[string]int64
}

func newProgress(total int64, replicas []string) *progress {
	p := &progress{total: total, perRep: map[string]int64{}}
	for _, r := range replicas {
		p.perRep[r] = 0
	}
	return p
}

func (p *progress) addDoc()   { p.docs.Add(1) }
func (p *progress) addError() { p.errors.Add(1) }

func (p *progress) addFailure(f failure) { p.failures[f].Add(1) }

func (p *progress) addWindows(replica string, n int) {
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

// start logs a progress line every interval until the returned func is
// called.
func (p *progress) start(ctx context.Context, log *zap.Logger, every time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	began := time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.log(log, time.Since(began))
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

func (p *progress) log(log *zap.Logger, elapsed time.Duration) {
	done := p.docs.Load()
	rate := float64(done) / elapsed.Seconds()
	fields := []zap.Field{zap.Int64("docs", done), zap.Float64("docs_per_s", round2(rate)), zap.Int64("errors", p.errors.Load())}
	if p.total > 0 {
		fields = append(fields, zap.Int64("total", p.total), zap.Float64("percent", round2(100*float64(done)/float64(p.total))))
		if rate > 0 {
			fields = append(fields, zap.Duration("eta", time.Duration(float64(p.total-done)/rate*float64(time.Second)).Round(time.Second)))
		}
	}
	for name, n := range p.replicaWindows() {
		fields = append(fields, zap.Int64("windows_"+name, n))
	}
	log.Info("progress", fields...)
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
