// Package scheduler is the pipeline: it reads documents, tokenizes them
// into windows, pools and length-sorts the windows into batches, lets free
// replicas pull batches, decodes the logits, gathers the windows of each
// document again and writes the records in input order. It knows replicas
// and the tokenizer only through the small interfaces below, so tests run
// it with fakes.
package scheduler

import (
	"context"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// Replica runs batches on one session of one device; whichever replica is
// free pulls the next batch. The program's replicas are fleet's
// (an ONNX Runtime session opened on first use); tests and the scheduling
// benchmark pass fakes and simulated devices (worker/sim).
type Replica interface {
	// Name is the replica's stable identifier: metrics labels, JSON log
	// fields, the summary's windows_per_replica.
	Name() string
	// Label is its name for people ("cpu#1 (1 thread)", "gpu0 H200 #2"),
	// shown in the progress bar and the summary table; "" shows Name.
	Label() string
	Run(ctx context.Context, b qa.Batch) (qa.Logits, error)
	// Rebuild recreates the session after a fatal error; the scheduler
	// tries it once before retiring the replica. An error means it cannot.
	Rebuild() error
	// Idle gives back what the session holds while the Shaper does not use
	// the replica: for a while (forGood false: another layout is being
	// measured, this one may come back) or for good (its layout was set
	// aside).
	Idle(forGood bool)
}

// Tokenizer turns text into tokens without special tokens. It must be safe
// for concurrent use.
type Tokenizer interface {
	Encode(text string) qa.Tokens
}

// Source yields the documents a run reads, in order; *input.Reader and
// *record.Stream are sources.
type Source interface {
	Next() (record.Document, error)
}

// LogitsSink receives every window's raw logits in input order;
// output/logits's Parts is one.
type LogitsSink interface {
	Write(rows []record.LogitsRow) error
}

// Config holds everything that shapes a run besides its inputs.
type Config struct {
	Settings qa.Settings
	Template qa.Template
	PadID    int32

	Batching
	Faults
	Checkpoints
	Reporting

	// Observer receives events for metrics (nil: none).
	Observer Observer
	Logger   *zap.Logger

	hooks hooks // tests only: empty in the program (hooks.go)
}

// Batching is how windows become batches: budgets, caps, the pool, the
// tokenizing workers and the memory bound of the documents in flight.
type Batching struct {
	// MaxBatchTokens caps rows*padded length of one batch; with a Shaper,
	// it is the largest budget the Shaper may plan (it sizes the pool).
	MaxBatchTokens int
	// Shaper, when set, chooses which replicas take work and the token
	// budget of each batch (nil: every replica, at MaxBatchTokens).
	Shaper Shaper
	// MaxBatchRows caps the rows of one batch (0: no cap); TensorRT needs
	// it to bound its optimisation profile.
	MaxBatchRows int
	// SingleWindowBatches makes every batch one window at its own length,
	// unpadded, whatever the budget; windows go out as they come. A model
	// that quantizes activations at run time (dynamic int8, one scale per
	// tensor) needs it: there a window's logits depend on its batch
	// neighbours and on padding, so batches shaped by timing would change
	// answers between runs, across --resume and across ranks.
	SingleWindowBatches bool
	// TokenizeWorkers is the number of goroutines tokenizing documents.
	TokenizeWorkers int
	// MaxInFlightBytes bounds the estimated memory (see docCost) of the
	// documents read but not yet written, which bounds every queue behind
	// the reader.
	MaxInFlightBytes int64
	// PoolTokens is how many window tokens are pooled before sorting by
	// length and cutting batches; a longer pool pads less.
	PoolTokens int
	// IdleFlush is how long the batcher waits for more windows before it
	// cuts the pool it has (0: 20 ms). It keeps replicas busy when the
	// input is slow; it is also the one place where the machine's load
	// shapes batches, so tests that judge batch shapes set it long, and
	// their batches are cut by the pool's size and the input's end alone.
	IdleFlush time.Duration
	// InputIdle, when set, tells the batcher that the input has paused
	// (standard input with nothing more to read: a writer waiting for
	// the answers of what it wrote). The pool is then cut as soon as every
	// document read has its windows in it, without waiting IdleFlush: a
	// call from the Python package is answered as soon as it can be.
	InputIdle <-chan struct{}
	// MaxWindowsPerDoc bounds what one document may cost: one needing
	// more windows (all its questions together) gets an error record per
	// question, without its windows being cut or run (0: no limit).
	MaxWindowsPerDoc int
}

// Faults is how the run tells a failing replica.
type Faults struct {
	// BatchTimeout terminates a batch running longer (0: ten times the
	// slowest batch seen, at least a minute).
	BatchTimeout time.Duration
	// Health names replicas whose device became unhealthy.
	Health <-chan string
}

// Checkpoints is where a run starts (resume), how it stops, and how it
// makes what it wrote durable.
type Checkpoints struct {
	// Stop, when closed, makes the run stop reading documents and finish
	// the ones already read (a graceful drain; cancel ctx to cut it short);
	// Run then reports Interrupted unless the input had been read to its
	// end.
	Stop <-chan struct{}
	// SkipBelow skips documents with a smaller Seq: they are in the output
	// already (resume). It is at least 0.
	SkipBelow int64
	// Checkpoint is called from the writer every CheckpointInterval with
	// the number of leading documents whose records have all been handed
	// to the sinks; it makes them durable.
	Checkpoint         func(next int64) error
	CheckpointInterval time.Duration
}

// Reporting is what progress counts and how it is shown.
type Reporting struct {
	// Total is the expected number of documents for progress (0: unknown).
	Total int64
	// DocsTotal, when set, gives the document total as it becomes known
	// (input.Reader counts it while the run starts): n, 0 while unknown,
	// and whether n is an estimate (shown as "~n"). It replaces Total on
	// the screen and for the Observer.
	DocsTotal func() (n int64, estimate bool)
	// TotalBytes is the work of this run in input bytes (input.Reader's
	// share; Document.Bytes add up to it); percent and ETA count work in
	// these bytes. 0: unknown, and percent and ETA count documents instead.
	TotalBytes int64
	// DoneBytes is the part of TotalBytes done before this run (resume),
	// when the input does not hand the skipped documents over.
	DoneBytes        int64
	ProgressInterval time.Duration
	// Now is the clock of progress rates and the ETA (nil: time.Now);
	// tests pass a simulated one.
	Now func() time.Time
	// ProgressBar, when set (a terminal), gets a live bar instead of the
	// periodic log line.
	ProgressBar StatusLine
	// Status adds device state (GPU utilization...) to progress reports.
	Status func() string
}

// StatusLine is the one line at the bottom of a terminal that the live
// bar redraws in place; log lines written meanwhile go above it, never
// over it.
type StatusLine interface {
	// Show replaces the line with text.
	Show(text string)
	// Done leaves the line as last shown and ends it.
	Done()
}

func (c *Config) defaults() {
	if c.MaxBatchTokens <= 0 {
		c.MaxBatchTokens = 8192
	}
	if c.TokenizeWorkers <= 0 {
		c.TokenizeWorkers = 2
	}
	if c.MaxInFlightBytes <= 0 {
		c.MaxInFlightBytes = 64 << 20
	}
	if c.PoolTokens <= 0 {
		c.PoolTokens = 8 * c.MaxBatchTokens
	}
	if c.IdleFlush <= 0 {
		c.IdleFlush = idleFlush
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	c.SkipBelow = max(c.SkipBelow, 0)
	if c.CheckpointInterval <= 0 {
		c.CheckpointInterval = 10 * time.Second
	}
	if c.ProgressInterval <= 0 {
		c.ProgressInterval = 30 * time.Second
	}
}

// Run processes every document of in and returns when all records are
// written, or with the first error. Per-record problems become error
// records and are counted, not returned.
func Run(ctx context.Context, cfg Config, src Source, tok Tokenizer, replicas []Replica, answers record.Sink, lg LogitsSink) (Summary, error) {
	cfg.defaults()
	p := newPipeline(cfg, src, tok, replicas, answers, lg)
	return p.run(ctx)
}
