package scheduler

import (
	"context"
	"sync"
	"sync/atomic"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// The host gathers each document's windows here, whichever replicas ran
// them: the windows of all its questions travel separately through the
// batch, serve and decode stages, and meet again in their docState. Every
// decoded window decrements pending, and the stage that brings it to zero
// hands the document to the writer.

// docState is one document on its way through the pipeline.
type docState struct {
	doc       record.Document
	settings  qa.Settings // the run's, or the record's own (recordSettings)
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

// questionState is one question of a document: its windows, and their
// results and raw logits as they are decoded.
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
	// finite: set on its retry (see serveStage.sortNonFinite), empty
	// before.
	nanFrom string
}

func (r windowRef) window() *qa.Window { return &r.doc.questions[r.q].windows[r.w] }

// gatherFailed records that one window could not be run: its question
// gets an error record instead of an answer, its work counts as done, and
// the document goes to the writer when this was its last window.
func gatherFailed(ctx context.Context, ref windowRef, err error, prog *progress, done chan<- *docState) error {
	ref.doc.fail(ref.q, err)
	prog.addWork(ref.doc.ranWindow())
	if d := ref.doc.finishWindow(); d != nil {
		return send(ctx, done, d)
	}
	return nil
}
