package scheduler

import "sync/atomic"

// flow counts documents between the reader and the batcher, so that the
// batcher can tell when every document read so far has its windows in
// the pool: then, when the input has paused (Batching.InputIdle: a
// writer on standard input waiting for its answers), it cuts the pool at
// once instead of waiting IdleFlush for windows that will not come.
type flow struct {
	in  atomic.Int64 // documents handed to the tokenizers
	cut atomic.Int64 // of those, documents whose windows were all sent on (or that had none)
	// wake tells the batcher a document without windows was cut: the
	// last document of a pause may send it no window to wake it.
	wake chan struct{}
}

func newFlow() *flow { return &flow{wake: make(chan struct{}, 1)} }

// entered counts a document about to be handed to the tokenizers.
func (f *flow) entered() { f.in.Add(1) }

// done counts a document whose windows were all sent on; noWindows
// wakes the batcher, which no window of it will.
func (f *flow) done(noWindows bool) {
	f.cut.Add(1)
	if noWindows {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// settled says whether every document read has its windows sent on.
func (f *flow) settled() bool { return f.cut.Load() == f.in.Load() }
