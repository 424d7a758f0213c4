package scheduler

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// docState is one document on its way through the pipeline. The windows
// of all its questions travel separately and meet again here: every
// decoded window decrements pending, and the replica that brings it to
// zero hands the document to the writer.
type docState struct {
	doc       record.Document
	ctx       qa.Tokens
	questions []questionState
	windows   int64 // of all questions
	pending   atomic.Int64
	ran       atomic.Int64 // windows the device is done with
	weight    int64        // in-flight budget held until written
	mu        sync.Mutex
}

// finishWindow counts one window decoded; it returns the document when
// that was the last one. The atomic decrement orders every window's writes
// before the writer's reads.
func (d *docState) finishWindow() *docState {
	if d.pending.Add(-1) == 0 {
		return d
	}
	return nil
}

// ranWindow counts one window the device is done with (run, or given up
// on) and returns its share of the document's input bytes: the shares of
// all its windows add up to exactly doc.Bytes. Progress counts work here,
// as batches return, not when the decoders get to them.
func (d *docState) ranWindow() int64 {
	k := d.ran.Add(1) // windows done, 1..windows
	return d.doc.Bytes*k/d.windows - d.doc.Bytes*(k-1)/d.windows
}

// fail marks a question whose window could not be run.
func (d *docState) fail(q int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.questions[q].err == nil {
		d.questions[q].err = err
	}
}

type questionState struct {
	text    string
	err     error // the question cannot be asked of this document
	windows []qa.Window
	results []qa.WindowResult
	raw     []qa.Logits // per window, only when logits are kept
}

// windowRef names one window of one document.
type windowRef struct {
	doc  *docState
	q, w int
	// nanFrom is the replica whose logits for this window were not
	// finite: set on its retry (see sortNonFinite), empty before.
	nanFrom string
}

func (r windowRef) window() *qa.Window { return &r.doc.questions[r.q].windows[r.w] }

type pipeline struct {
	cfg      Config
	src      Source
	tok      Tokenizer
	replicas []Replica
	answers  AnswerSink
	logits   LogitsSink

	inflight   *semaphore.Weighted
	progress   *progress
	first      snapshot // progress when the run started
	stats      stats
	reps       []*replica
	byName     map[string]*replica
	labels     map[string]string // replica name -> label for people
	done       chan<- *docState  // documents whose windows are all decoded
	dispatched chan struct{}     // closed when the dispatcher ends

	stopping atomic.Bool  // Stop was closed: drain, then end
	readAll  atomic.Bool  // the input was read to its end
	readErr  error        // the input failed: drained, then returned
	readSeq  atomic.Int64 // Seq after the last document read
	next     atomic.Int64 // first Seq not yet written
	pooled   atomic.Int64 // windows in the batcher's pool
	queued   atomic.Int64 // batches waiting for a replica
	// finiteSeen: some window gave finite logits, so the model works and
	// a window whose logits are not finite is that window's problem.
	finiteSeen atomic.Bool
}

type stats struct {
	tokens, padded, batches atomic.Int64 // windows are counted by progress
}

func newPipeline(cfg Config, src Source, tok Tokenizer, replicas []Replica, answers AnswerSink, lg LogitsSink) *pipeline {
	p := &pipeline{
		cfg: cfg, src: src, tok: tok, replicas: replicas, answers: answers, logits: lg,
		inflight:   semaphore.NewWeighted(cfg.MaxInFlightBytes),
		progress:   newProgress(cfg, replicaNames(replicas)),
		byName:     map[string]*replica{},
		dispatched: make(chan struct{}),
	}
	p.labels = labels(replicas)
	p.progress.labels = p.labels
	if _, ok := cfg.Shaper.(Using); ok {
		p.progress.inUse = p.using
	}
	for _, r := range replicas {
		rs := &replica{Replica: r, reply: make(chan grant, 1), ready: make(chan prepared)}
		rs.maxTokens.Store(math.MaxInt64)
		p.reps = append(p.reps, rs)
		p.byName[r.Name()] = rs
	}
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
	done := make(chan *docState, 256)
	p.done = done

	// The reader runs under its own context: a graceful stop cancels it,
	// and every document already read is finished and written, as if the
	// input had ended there (the hard context bounds how long that takes).
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go p.watchStop(outer, ctx, stopReading)
	g.Go(func() error { defer close(docs); return p.stopped(p.read(readCtx, docs)) })
	tokenizers, tctx := errgroup.WithContext(ctx)
	for range p.cfg.TokenizeWorkers {
		tokenizers.Go(func() error { return p.prepare(tctx, docs, windows, done) })
	}
	g.Go(func() error { defer close(windows); return tokenizers.Wait() })
	g.Go(func() error { defer close(batches); return p.batch(ctx, windows, batches) })
	workers := p.startReplicas(ctx, batches, done)
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
		close(done)
		return nil
	})
	var sum Summary
	g.Go(func() error {
		var err error
		sum, err = p.write(ctx, done)
		return err
	})
	go p.watchHealth(ctx)
	go p.observe(ctx)
	stopProgress := p.progress.start(ctx, p.cfg.Logger, p.cfg.ProgressInterval, p.cfg.ProgressBar, p.cfg.Status)
	stageErr := g.Wait()
	if stageErr == nil {
		stageErr = p.readErr // set before the reader returned, read after g.Wait
	}
	if outer.Err() != nil {
		p.progress.stopping.Store(true) // the last line has no ETA
	}
	stopProgress()
	p.observeOnce(p.first) // the final state, for metrics written after the run
	sum.Wall = time.Since(start)
	sum.Windows = p.progress.windows.Load()
	sum.Tokens = p.stats.tokens.Load()
	sum.PaddedTokens = p.stats.padded.Load()
	sum.Batches = p.stats.batches.Load()
	sum.ReplicaCounts = p.progress.replicaWindows()
	sum.Replicas = p.replicaUses(sum.ReplicaCounts)
	for name, n := range sum.ReplicaCounts {
		if n == 0 && !p.using(name) {
			delete(sum.ReplicaCounts, name) // a search session that never ran
		}
	}
	sum.Next = p.next.Load()
	sum.Interrupted = p.stopping.Load() && !p.readAll.Load()
	return sum, stageErr
}

// read streams documents and takes in-flight budget for each, so a slow
// model holds back the reader instead of filling memory.
func (p *pipeline) read(ctx context.Context, docs chan<- *docState) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := p.src.Next()
		if errors.Is(err, io.EOF) {
			p.readAll.Store(true)
			return nil
		}
		if errors.Is(err, context.Canceled) {
			return err // the input saw the stop first (see stopped)
		}
		if err != nil {
			// Corrupt or unreadable input: the documents read before it
			// are finished and written, then Run returns the error.
			p.readErr = err
			return nil
		}
		if d.Seq < p.cfg.SkipBelow {
			p.progress.skipped(d.Bytes) // this run's share, done before a resume
			continue
		}
		w := min(docCost(len(d.Context)), p.cfg.MaxInFlightBytes)
		if ctx.Err() != nil || !p.inflight.TryAcquire(w) { // Acquire's own fast path, then its wait
			p.cfg.hooks.budgetWait(true)
			err := p.inflight.Acquire(ctx, w)
			p.cfg.hooks.budgetWait(false)
			if err != nil {
				return err
			}
		}
		select {
		case docs <- &docState{doc: d, weight: w}:
			p.readSeq.Store(d.Seq + 1)
		case <-ctx.Done():
			p.inflight.Release(w)
			return ctx.Err()
		}
	}
}

// docCost estimates the memory a document holds from reading to writing:
// its text, and about 16 bytes of ids, offsets and word ids per token plus
// the windows' copies, at roughly four bytes of English per token.
func docCost(contextBytes int) int64 { return 6*int64(contextBytes) + 2048 }

func (p *pipeline) log() *zap.Logger { return p.cfg.Logger }

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
