package scheduler

import (
	"context"
	"testing"
	"time"
)

// TestPausedInputCutsThePool: with IdleFlush an hour (so no timer cuts
// anything in the test), a pause of the input cuts the pool as soon as
// every document read has its windows in it: at once when they all are;
// when a document is still being cut, once its last window arrives; when
// the last document has no window, once it is counted (wake). No pause,
// no cut. The pool's windows all come out, in one run.
func TestPausedInputCutsThePool(t *testing.T) {
	guard := func(out <-chan *batch, want int) {
		t.Helper()
		select {
		case b := <-out:
			if len(b.refs) != want {
				t.Fatalf("a run of %d windows, want %d", len(b.refs), want)
			}
		case <-time.After(30 * time.Second): // a hang, not a speed: the cut needs no time to pass
			t.Fatal("the pool was not cut after the input paused")
		}
	}
	none := func(out <-chan *batch) {
		t.Helper()
		select {
		case b := <-out:
			t.Fatalf("a run of %d windows was cut before the input paused and its documents were in", len(b.refs))
		default:
		}
	}
	refs := windowsOfLen(t, []int{12, 20, 9})
	f := newFlow()
	paused := make(chan struct{}, 1)
	s := &batchStage{poolTokens: 1 << 20, idle: time.Hour, paused: paused, flow: f}
	in, out := make(chan windowRef, 16), make(chan *batch, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, in, out) }()

	// Two documents read and cut, their windows in: a pause cuts them.
	f.entered()
	f.entered()
	f.done(false)
	in <- refs[0]
	f.done(false)
	in <- refs[1]
	paused <- struct{}{}
	guard(out, 2)

	// A third read and still being cut: the pause waits for its window.
	f.entered()
	paused <- struct{}{}
	time.Sleep(10 * time.Millisecond) // lets a wrong cut happen, if there is one
	none(out)
	f.done(false)
	in <- refs[2]
	guard(out, 1)

	// A window in, then a document without windows still being cut when
	// the input pauses: it wakes the batcher once it is counted.
	f.entered()
	f.done(false)
	in <- refs[0]
	f.entered()
	paused <- struct{}{}
	time.Sleep(10 * time.Millisecond)
	none(out)
	f.done(true)
	guard(out, 1)

	// No pause: nothing is cut before the hour.
	f.entered()
	f.done(false)
	in <- refs[1]
	time.Sleep(10 * time.Millisecond)
	none(out)
	close(in)
	guard(out, 1) // the input's end cuts what is left
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
