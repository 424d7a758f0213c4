package scheduler

import "time"

// Observer receives the run's events, for metrics. Methods are called from
// several goroutines and must not block.
type Observer interface {
	// BatchDone: a batch ran on replica in d, with rows windows, tokens
	// real tokens and padded positions in all.
	BatchDone(replica string, rows, tokens, padded int, d time.Duration)
	// Records: a document was written with answers answer records and
	// errors error records.
	Records(answers, errors int)
	// Failure: a batch failed on replica; kind is "out of memory",
	// "fatal" or "error".
	Failure(replica, kind string)
	// Progress, about once a second.
	Progress(Progress)
}

// Progress is the state of a run at one moment.
type Progress struct {
	// Docs are the documents written (resumed ones included) of
	// DocsTotal (0: unknown).
	Docs, DocsTotal int64
	// Fraction of the work done, in [0, 1], counted in input bytes (see
	// Config.TotalBytes); -1 when unknown.
	Fraction float64
	// ETA is the estimated time to the end; -1 when unknown.
	ETA time.Duration
	// Queue depths: documents in flight, windows waiting to be batched,
	// batches waiting for a replica.
	DocsInFlight, WindowsPooled, BatchesQueued int
}

type nopObserver struct{}

func (nopObserver) BatchDone(string, int, int, int, time.Duration) {}
func (nopObserver) Records(int, int)                               {}
func (nopObserver) Failure(string, string)                         {}
func (nopObserver) Progress(Progress)                              {}
