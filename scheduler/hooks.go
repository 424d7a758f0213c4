//go:build !testhooks

package scheduler

import "qa-shard/qa"

// hooks let the scheduler's tests observe the order of events. The program
// is built without the testhooks tag, so here they are empty and cost
// nothing; hooks_testhooks.go is the tests' version.
type hooks struct{}

func (hooks) prepared(string, qa.Batch) {}
func (hooks) decode(string, int)        {}
func (hooks) budgetWait(bool)           {}
