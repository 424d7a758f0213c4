package scheduler

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"qa-shard/internal/record"
)

// pipeline wires the stages of one run: read, tokenize, batch, dispatch,
// serve, decode, write (each a type in the file named for it; gather.go
// is where a document's windows meet again). Each stage owns its state;
// the pipeline owns the channels between them, the one errgroup that
// runs them, and how the run stops.
type pipeline struct {
	cfg      Config
	replicas []Replica
	reps     []*replica
	byName   map[string]*replica
	labels   map[string]string // replica name -> label for people
	progress *progress
	first    snapshot // progress when the run started

	read     *readStage
	tokenize *tokenizeStage
	batch    *batchStage
	dispatch *dispatchStage
	serve    *serveStage
	decode   *decodeStage
	write    *writeStage
	done     chan *docState // documents whose windows are all decoded, to the writer

	stopping atomic.Bool // Stop was closed: drain, then end
	ended    atomic.Bool // every stage has returned
	complete atomic.Bool // ... without error, the input read to its end
}

func newPipeline(cfg Config, src Source, tok Tokenizer, replicas []Replica, answers record.Sink, lg LogitsSink) *pipeline {
	p := &pipeline{
		cfg: cfg, replicas: replicas,
		progress: newProgress(cfg, replicaNames(replicas)),
		byName:   map[string]*replica{},
		done:     make(chan *docState, 256),
	}
	p.labels = labels(replicas)
	p.progress.labels = p.labels
	if cfg.Shaper != nil {
		p.progress.inUse = cfg.Shaper.Using
	}
	for _, r := range replicas {
		rs := &replica{Replica: r, reply: make(chan grant, 1), ready: make(chan prepared)}
		rs.maxTokens.Store(math.MaxInt64)
		p.reps = append(p.reps, rs)
		p.byName[r.Name()] = rs
	}
	f := newFlow()
	p.read = newReadStage(cfg, src, p.progress, f)
	p.tokenize = newTokenizeStage(cfg, tok, lg != nil, p.progress, f)
	p.batch = newBatchStage(cfg, f)
	p.dispatch = newDispatchStage(cfg, len(p.reps))
	p.serve = newServeStage(cfg, p.progress, p.dispatch.dispatched, p.done)
	p.decode = newDecodeStage(cfg, p.progress)
	p.write = newWriteStage(cfg, answers, lg, p.read.inflight, p.progress)
	return p
}

func (p *pipeline) run(ctx context.Context) (Summary, error) {
	if len(p.replicas) == 0 {
		return Summary{}, errors.New("scheduler: no replicas")
	}
	start := time.Now()
	p.first = p.progress.snap()
	outer := ctx
	g, ctx := errgroup.WithContext(ctx)
	docs := make(chan *docState, 64)
	windows := make(chan windowRef, 1024)
	batches := make(chan *batch, 2*len(p.replicas))

	// The reader runs under its own context: a graceful stop cancels it,
	// and every document already read is finished and written, as if the
	// input had ended there (the hard context bounds how long that takes).
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go p.watchStop(outer, ctx, stopReading)
	g.Go(func() error { defer close(docs); return p.stopped(p.read.run(readCtx, docs)) })
	tokenizers, tctx := errgroup.WithContext(ctx)
	for range p.cfg.TokenizeWorkers {
		tokenizers.Go(func() error { return p.tokenize.run(tctx, docs, windows, p.done) })
	}
	g.Go(func() error { defer close(windows); return tokenizers.Wait() })
	g.Go(func() error { defer close(batches); return p.batch.run(ctx, windows, batches) })
	workers := p.startReplicas(ctx, batches)
	g.Go(func() error {
		// done has two kinds of senders: the decoders (and replicas, for
		// windows that failed) and the tokenizing workers (documents
		// without windows). Close it only once all of them returned
		// without error; on an error the writer stops on ctx.
		if err := workers.Wait(); err != nil {
			return err
		}
		if err := tokenizers.Wait(); err != nil {
			return err
		}
		close(p.done)
		return nil
	})
	var sum Summary
	g.Go(func() error {
		var err error
		sum, err = p.write.run(ctx, p.done)
		return err
	})
	go p.watchHealth(ctx)
	go p.observe(ctx)
	stopProgress := p.progress.start(ctx, p.cfg.Logger, p.cfg.ProgressInterval, p.cfg.ProgressBar, p.cfg.Status)
	stageErr := g.Wait()
	if stageErr == nil {
		stageErr = p.read.err // set before the reader returned, read after g.Wait
	}
	if outer.Err() != nil {
		p.progress.stopping.Store(true) // the last line has no ETA
	}
	stopProgress()
	p.complete.Store(stageErr == nil && p.read.all.Load())
	p.ended.Store(true)
	p.observeOnce(p.first) // the final state, for metrics written after the run
	return p.summary(sum, time.Since(start)), stageErr
}

// startReplicas starts the dispatcher, each replica's feed and serve
// goroutines, and the decoders, in one group: when one fails, all stop.
// The decoders end once every replica has stopped handing them batches.
func (p *pipeline) startReplicas(ctx context.Context, batches <-chan *batch) *errgroup.Group {
	workers, ctx := errgroup.WithContext(ctx)
	n := len(p.reps)
	requests := make(chan *replica, n) // one request per replica at most
	outcomes := make(chan outcome, 2*n)
	decoded := make(chan decodeJob, 2*n)
	workers.Go(func() error { return p.dispatch.run(ctx, batches, requests, outcomes) })
	var serving sync.WaitGroup
	for _, r := range p.reps {
		serving.Add(1)
		workers.Go(func() error { return p.serve.feed(ctx, r, requests) })
		workers.Go(func() error { defer serving.Done(); return p.serve.serve(ctx, r, outcomes, decoded) })
	}
	workers.Go(func() error { serving.Wait(); close(decoded); return nil })
	for range max(2, runtime.GOMAXPROCS(0)) {
		workers.Go(func() error { return p.decode.run(ctx, decoded, p.done) })
	}
	return workers
}

// summary completes the writer's counts with what the other stages saw.
func (p *pipeline) summary(sum Summary, wall time.Duration) Summary {
	sum.Wall = wall
	sum.Windows = p.progress.windows.Load()
	sum.Tokens = p.decode.tokens.Load()
	sum.PaddedTokens = p.decode.padded.Load()
	sum.Batches = p.decode.batches.Load()
	sum.ReplicaCounts = p.progress.replicaWindows()
	sum.Replicas = p.replicaUses(sum.ReplicaCounts)
	for name, n := range sum.ReplicaCounts {
		if n == 0 && !p.using(name) {
			delete(sum.ReplicaCounts, name) // a search session that never ran
		}
	}
	sum.Next = p.write.next.Load()
	sum.Interrupted = p.stopping.Load() && !p.read.all.Load()
	return sum
}

func replicaNames(rs []Replica) []string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name()
	}
	return names
}

func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
