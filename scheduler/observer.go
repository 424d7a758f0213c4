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
	// Progress, about once a second: documents done (resumed ones
	// included) of total (0: unknown), the ETA (-1: unknown), and the
	// depths of the queues: documents in flight, windows waiting to be
	// batched, sorted runs of windows waiting for replicas (each replica's
	// batch is cut from them when it asks).
	Progress(done, total int64, eta time.Duration, docsInFlight, windowsPooled, batchesQueued int)
}

type nopObserver struct{}

func (nopObserver) BatchDone(string, int, int, int, time.Duration)      {}
func (nopObserver) Records(int, int)                                    {}
func (nopObserver) Failure(string, string)                              {}
func (nopObserver) Progress(int64, int64, time.Duration, int, int, int) {}
