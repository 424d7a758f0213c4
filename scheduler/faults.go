package scheduler

import (
	"errors"

	"qa-shard/internal/errkind"
)

// ErrAllReplicasFailed means every replica was retired: the run cannot go
// on here, but what was written is complete and the run can be resumed
// (a run's report makes it exit 75; a bench, which has nothing to
// resume, exits 1: hence its kind is Internal).
var ErrAllReplicasFailed = errkind.NewInternal("every replica failed and was retired")

// ErrBatchTimeout marks a batch that ran longer than the batch timeout and
// was terminated.
var ErrBatchTimeout = errkind.NewInternal("batch timed out")

// ErrUnhealthy marks a replica whose device was reported unhealthy.
var ErrUnhealthy = errkind.NewInternal("device reported unhealthy")

// OutOfMemory and Fatal are how a replica's error tells the kind of
// failure (worker.RunError implements both; errors.As finds them through
// any wrapping). An error with neither may follow the batch's content.
type (
	// OutOfMemory: true when the batch did not fit in the device's memory
	// now, so smaller batches may run.
	OutOfMemory interface{ OutOfMemory() bool }
	// Fatal: true when the session is broken until it is rebuilt.
	Fatal interface{ Fatal() bool }
)

type failure int

const (
	failOther failure = iota // may be the batch's content: bisect it
	failOOM                  // too big for the device now: split, shrink the budget
	failFatal                // the session or device is broken: rebuild or retire
)

func (f failure) String() string {
	return FailureKinds()[f]
}

// FailureKinds are the kinds Observer.Failure reports, so that what
// counts them can know every kind before the first failure.
func FailureKinds() []string { return []string{"error", "out of memory", "fatal"} }

func classify(err error) failure {
	var fatal Fatal
	var oom OutOfMemory
	switch {
	case errors.Is(err, ErrBatchTimeout), errors.Is(err, ErrUnhealthy):
		return failFatal
	case errors.As(err, &fatal) && fatal.Fatal():
		return failFatal
	case errors.As(err, &oom) && oom.OutOfMemory():
		return failOOM
	}
	return failOther
}
