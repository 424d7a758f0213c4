//go:build testhooks

package scheduler

import "qa-shard/qa"

// hooks let the scheduler's tests observe the order of events (the tests
// that set them carry the testhooks build tag, as make test does); nil
// fields cost nothing. The program is built without them (hooks.go).
type hooks struct {
	onPrepared func(replica string, b qa.Batch) // a batch's tensors are built
	onDecode   func(replica string, rows int)   // a batch is about to be decoded
	// onBudgetWait: the reader must wait for in-flight budget (true, just
	// before it blocks), then has it or gives up (false).
	onBudgetWait func(waiting bool)
}

func (h hooks) prepared(replica string, b qa.Batch) {
	if h.onPrepared != nil {
		h.onPrepared(replica, b)
	}
}

func (h hooks) decode(replica string, rows int) {
	if h.onDecode != nil {
		h.onDecode(replica, rows)
	}
}

func (h hooks) budgetWait(waiting bool) {
	if h.onBudgetWait != nil {
		h.onBudgetWait(waiting)
	}
}
